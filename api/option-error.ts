// MurmurOptionsError as the library raises it: the option's path and the message prefixed with it.
import { MurmurOptionsError } from './errors.js';

export function optionError(option: string, message: string): MurmurOptionsError {
  return new MurmurOptionsError(option, `murmur: option ${option}: ${message}`);
}

export function fail(option: string, message: string): never {
  throw optionError(option, message);
}

'use strict';
const defaults = require('./defaults');
const { isNonEmpty } = require('./validate');

function load(overrides) {
  const merged = { ...defaults, ...overrides };
  if (!isNonEmpty(merged.name)) throw new Error('config: name is required');
  return merged;
}

module.exports = { load };

'use strict';

function pad(value, width = 2) {
  return String(value).padStart(width, '0');
}

function money(cents) {
  return `$${(cents / 100).toFixed(2)}`;
}

module.exports = { pad, money };

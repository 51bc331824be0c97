'use strict';

function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}

function isEven(value) {
  return value % 2 === 0;
}

module.exports = { clamp, isEven };

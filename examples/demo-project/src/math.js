'use strict';
const { clamp } = require('./numbers');

function sum(values) {
  return values.reduce((total, value) => total + value, 0);
}

function average(values) {
  return values.length === 0 ? 0 : sum(values) / values.length;
}

function percent(part, whole) {
  return clamp(Math.round((part / whole) * 100), 0, 100);
}

module.exports = { sum, average, percent };

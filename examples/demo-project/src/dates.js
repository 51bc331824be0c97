'use strict';
const { pad } = require('./format');

function isoDay(date) {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

function addDays(date, days) {
  return new Date(date.getTime() + days * 86400000);
}

module.exports = { isoDay, addDays };

'use strict';
const { average, percent } = require('./math');
const { isoDay } = require('./dates');

function summary(scores, day) {
  return { day: isoDay(day), average: average(scores), passRate: percent(scores.filter((s) => s >= 50).length, scores.length) };
}

module.exports = { summary };

'use strict';
const { sum } = require('./math');
const { money } = require('./format');

function total(items) {
  return sum(items.map((item) => item.price * item.quantity));
}

function receipt(items) {
  return items.map((item) => `${item.name} x${item.quantity}`).concat(`total ${money(total(items))}`);
}

module.exports = { total, receipt };

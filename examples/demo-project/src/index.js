'use strict';
const cart = require('./cart');
const users = require('./users');
const report = require('./report');
const config = require('./config');

module.exports = { cart, users, report, config };

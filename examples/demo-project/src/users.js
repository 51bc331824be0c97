'use strict';
const { capitalize } = require('./strings');
const { isValidEmail } = require('./validate');

function displayName(user) {
  return `${capitalize(user.first)} ${capitalize(user.last)}`;
}

function contactable(users) {
  return users.filter((user) => isValidEmail(user.email));
}

module.exports = { displayName, contactable };

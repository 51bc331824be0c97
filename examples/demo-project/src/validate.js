'use strict';

function isValidEmail(email) {
  return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email);
}

function isNonEmpty(text) {
  return typeof text === 'string' && text.trim().length > 0;
}

module.exports = { isValidEmail, isNonEmpty };

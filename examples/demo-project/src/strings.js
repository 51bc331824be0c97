'use strict';

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function slugify(text) {
  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function truncate(text, length) {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

module.exports = { capitalize, slugify, truncate };

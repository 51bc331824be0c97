'use strict';

const defaults = {
  name: 'demo',
  currency: 'USD',
  pageSize: 20,
};

module.exports = defaults;

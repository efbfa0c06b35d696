// The better-sqlite3 that the running Node loads without crashing (driver.cjs says which and why).
module.exports = require(require("./driver.cjs").driverFor(process.versions))

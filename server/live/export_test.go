package live

// CompareSnapshots is compareSnapshots for the external tests.
var CompareSnapshots = compareSnapshots

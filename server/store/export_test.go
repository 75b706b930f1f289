package store

// NearestSQL exposes NearestDocuments' query to the tests (its plan).
var NearestSQL = nearestSQL

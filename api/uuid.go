package api

import "boolpool/server/vocab"

// NewUUID returns a random (version 4) UUID in its 8-4-4-4-12 hex form:
// the client id of a judgment (made in the browser, so that a retry is
// stored once) and the id of an export snapshot.
func NewUUID() string { return vocab.NewUUID() }

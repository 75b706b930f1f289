package api

import (
	"crypto/rand"
	"encoding/hex"
)

// NewUUID returns a random (version 4) UUID in its 8-4-4-4-12 hex form:
// the client id of a judgment (made in the browser, so that a retry is
// stored once) and the id of an export snapshot.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

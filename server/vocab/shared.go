package vocab

import (
	"crypto/rand"
	"encoding/hex"
)

// Limits on a judgment's free text, in bytes (UTF-8), shared by the server's
// checks and the browser's fields so both enforce one value.
const (
	MaxComment    = 4000
	MaxSkipReason = 500
	MaxParaphrase = 1000
	MaxReviewNote = 4000 // a review note, like an adjudication note
)

// CrowdLeaseCap is the most items a crowd participant holds leased at
// once, so anonymous identities cannot starve a project's members.
const CrowdLeaseCap = 3

// MaxQueue is the most tasks one queue request may ask for (the server's
// limit on QueueRequest.N; the browser's batches stay within it).
const MaxQueue = 10

// Review verdicts.
const (
	ReviewAccept  = "accept"
	ReviewCorrect = "correct"
)

// CSRFHeader carries the session's CSRF token on every state-changing request.
const CSRFHeader = "X-CSRF-Token"

// roleRank is the one list of roles, from least to most privileged:
// a role's rank, or 0 for a string that is not a role.
func roleRank(r string) int {
	switch r {
	case RoleAnnotator:
		return 1
	case RoleResearcher:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// ValidRole reports whether r is a known role.
func ValidRole(r string) bool { return roleRank(r) > 0 }

// RoleAtLeast reports whether role has at least the privileges of min.
func RoleAtLeast(role, min string) bool {
	return roleRank(role) > 0 && roleRank(role) >= roleRank(min)
}

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

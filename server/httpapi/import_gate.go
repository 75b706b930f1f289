package httpapi

import (
	"sync"

	"boolpool/server/apperr"
)

// importGate bounds the uploads each user has importing at once (issue
// 29: 34 slow imports of one researcher stalled everyone's requests).
type importGate struct {
	max     int
	mu      sync.Mutex
	running map[int64]int // user id -> imports in progress
}

func newImportGate(max int) *importGate {
	return &importGate{max: max, running: map[int64]int{}}
}

// enter takes a place for userID, or answers 429 when the user has max
// imports running; call the returned func when the import ends.
func (g *importGate) enter(userID int64) (leave func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running[userID] >= g.max {
		return nil, apperr.Refusedf(apperr.ErrRateLimited, "files",
			"you have %d imports running; at most %d at once (the server's -max-imports-per-user): wait for one to finish", g.running[userID], g.max)
	}
	g.running[userID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.running[userID]--; g.running[userID] <= 0 {
				delete(g.running, userID)
			}
		})
	}, nil
}

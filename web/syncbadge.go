package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// SyncBadge says whether the rater's judgments are saved, pending or
// waiting for the network.
type SyncBadge struct {
	app.Compo
	Istate    string
	Ipending  int
	Irejected int
}

// NewSyncBadge returns a badge in the saved state.
func NewSyncBadge() *SyncBadge { return &SyncBadge{Istate: string(SyncSaved)} }

// State sets the sync state (see SyncState).
func (b *SyncBadge) State(v string) *SyncBadge { b.Istate = v; return b }

// Pending sets the number of unsent judgments.
func (b *SyncBadge) Pending(v int) *SyncBadge { b.Ipending = v; return b }

// Rejected sets the number of judgments the server refused.
func (b *SyncBadge) Rejected(v int) *SyncBadge { b.Irejected = v; return b }

// Render draws the badge as a polite live region.
func (b *SyncBadge) Render() app.UI {
	text := "All judgments saved"
	switch SyncState(b.Istate) {
	case SyncPending:
		text = "Saving…"
	case SyncOffline:
		text = "Offline: judgments kept in this browser"
	case SyncSignedOut:
		text = "Signed out: sign in again to send your judgments"
	case SyncOtherAccount:
		text = "This browser is signed in as someone else (another tab?): your judgments wait here until you sign in again"
	}
	if b.Ipending > 0 {
		text += " · " + itoa(b.Ipending) + " pending"
	}
	if b.Irejected > 0 {
		text += " · " + itoa(b.Irejected) + " refused by the server (listed below)"
	}
	return app.Div().ID("sync-status").Class("sync", "sync-"+b.Istate).Role("status").Aria("live", "polite").
		DataSet("state", b.Istate).DataSet("pending", b.Ipending).Text(text)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

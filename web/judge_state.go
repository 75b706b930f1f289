package web

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"boolpool/api"
)

// What the judging pages keep in browser storage for each account besides
// the outbox: the items judged here (history, to go back and correct, per
// project), the forms in progress (drafts, so a reload loses nothing typed)
// and which task types' instructions were shown (per project: each has
// instructions of its own). The v1 history and instructions-seen keys were
// per account; they are left unread (each project starts afresh).
const (
	historyKeyPrefix = "boolpool.history.v2."
	draftKeyPrefix   = "boolpool.drafts.v1."
	seenKeyPrefix    = "boolpool.instructions-seen.v2."
	// historyMax is how many recent items the history keeps.
	historyMax = 30
	// draftMax is how many items' drafts are kept (the oldest go first).
	draftMax = 50
)

// HistoryEntry is one item judged (or skipped) in this browser: what was
// sent, to list it and to go back to it.
type HistoryEntry struct {
	Req  api.JudgmentRequest `json:"req"`
	Item string              `json:"item,omitempty"` // what was judged, for people (query · document)
	At   time.Time           `json:"at"`
}

// accountProjectKey is the storage key of an account's value of a project
// and task kind (project names have no dots: ^[a-z0-9][a-z0-9_-]*$).
func accountProjectKey(prefix string, userID int64, project, kind string) string {
	return prefix + strconv.FormatInt(userID, 10) + "." + project + "." + kind
}

func historyKey(userID int64, project, kind string) string {
	return accountProjectKey(historyKeyPrefix, userID, project, kind)
}

// LoadHistory returns an account's recent items of a kind in a project,
// most recent first.
func LoadHistory(st Storage, userID int64, project, kind string) []HistoryEntry {
	var hs []HistoryEntry
	if st == nil || userID == 0 || st.Get(historyKey(userID, project, kind), &hs) != nil {
		return nil
	}
	return hs
}

// PushHistory puts a judgment at the head of a history (an item judged
// again moves up, with its new labels), keeping historyMax entries.
func PushHistory(hs []HistoryEntry, e HistoryEntry) []HistoryEntry {
	out := make([]HistoryEntry, 0, min(len(hs)+1, historyMax))
	out = append(out, e)
	for _, h := range hs {
		if h.Req.ItemID != e.Req.ItemID && len(out) < historyMax {
			out = append(out, h)
		}
	}
	return out
}

// SaveHistory stores an account's history of a kind in a project.
func SaveHistory(st Storage, userID int64, project, kind string, hs []HistoryEntry) {
	var w HistoryWriter
	w.Save(st, userID, project, kind, hs)
}

// HistoryWriter stores histories, encoding each entry once: after a submit
// one entry is new, and re-encoding all historyMax of them at every submit
// took milliseconds of the browser's only thread. The stored value is the
// same JSON array SaveHistory always wrote. Safe for concurrent use.
type HistoryWriter struct {
	mu  sync.Mutex
	enc map[string]json.RawMessage // by the judgment's client id
}

// Save stores hs as userID's history of kind in project.
func (w *HistoryWriter) Save(st Storage, userID int64, project, kind string, hs []HistoryEntry) {
	if st == nil || userID == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	enc := make(map[string]json.RawMessage, len(hs))
	buf := []byte{'['}
	for i, h := range hs {
		b, ok := w.enc[h.Req.ClientID]
		if !ok || h.Req.ClientID == "" {
			var err error
			if b, err = json.Marshal(h); err != nil {
				return
			}
		}
		if h.Req.ClientID != "" {
			enc[h.Req.ClientID] = b
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, b...)
	}
	w.enc = enc
	_ = st.Set(historyKey(userID, project, kind), json.RawMessage(append(buf, ']')))
}

// HistoryLabel says in a few words what a judgment was.
func HistoryLabel(r api.JudgmentRequest) string {
	switch {
	case r.SkipReason != "":
		return "skipped: " + r.SkipReason
	case r.Relevance != nil:
		s := relevanceName(*r.Relevance)
		if r.Evidence != "" {
			s += " · " + evidenceName(r.Evidence)
		}
		return s
	case r.Paraphrase != nil:
		if r.Paraphrase.Nonsensical {
			return "nonsensical"
		}
		return "“" + r.Paraphrase.Text + "”"
	case r.Validation != nil:
		v := r.Validation
		return fmt.Sprintf("fluent %s · meaning %s · natural %s", v.Fluent, v.Meaning, v.Naturalness)
	}
	return "judged"
}

// Draft is a judging form in progress.
type Draft struct {
	Relevance    int               `json:"relevance"` // -1 = not chosen
	Evidence     string            `json:"evidence,omitempty"`
	Attributions map[string][]int  `json:"attributions,omitempty"` // atom → sentences
	Satisfied    map[string]string `json:"satisfied,omitempty"`    // atom → yes | no | unsure
	Comment      string            `json:"comment,omitempty"`
	ActiveAtom   int               `json:"active_atom,omitempty"`
	Cursor       int               `json:"cursor,omitempty"`
	SavedAt      time.Time         `json:"saved_at"`
}

// Empty reports whether the draft holds nothing chosen or typed.
func (d Draft) Empty() bool {
	return d.Relevance < 0 && d.Evidence == "" && len(d.Attributions) == 0 && len(d.Satisfied) == 0 && strings.TrimSpace(d.Comment) == ""
}

func draftKey(userID int64) string { return draftKeyPrefix + strconv.FormatInt(userID, 10) }

// Drafts are one account's drafts, kept in memory (read from browser
// storage once) and written back by Flush: the judging page flushes in a
// browser task of its own within persistDelay of a change, and at once when
// the page is hidden or left, so a key press does not wait for the write. Safe for
// concurrent use.
type Drafts struct {
	mu     sync.Mutex
	st     Storage
	user   int64
	m      map[string]Draft
	dirty  bool
	stored bool // storage holds drafts of the user
}

// LoadDrafts reads an account's drafts.
func LoadDrafts(st Storage, userID int64) *Drafts {
	d := &Drafts{st: st, user: userID, m: map[string]Draft{}}
	if st != nil && userID != 0 {
		if st.Get(draftKey(userID), &d.m) != nil || d.m == nil {
			d.m = map[string]Draft{}
		}
		d.stored = len(d.m) > 0
	}
	return d
}

// User is the account the drafts are of.
func (d *Drafts) User() int64 { return d.user }

// Get returns the draft of an item.
func (d *Drafts) Get(itemID int64) (Draft, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dr, ok := d.m[strconv.FormatInt(itemID, 10)]
	return dr, ok
}

// Put keeps the draft of an item (an empty one is deleted), dropping the
// oldest drafts beyond draftMax, until Flush writes them.
func (d *Drafts) Put(itemID int64, dr Draft) {
	if d.st == nil || d.user == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	k := strconv.FormatInt(itemID, 10)
	if dr.Empty() {
		if _, ok := d.m[k]; !ok {
			return
		}
		delete(d.m, k)
	} else {
		d.m[k] = dr
	}
	if len(d.m) > draftMax {
		keys := make([]string, 0, len(d.m))
		for k := range d.m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return d.m[keys[i]].SavedAt.Before(d.m[keys[j]].SavedAt) })
		for _, k := range keys[:len(d.m)-draftMax] {
			delete(d.m, k)
		}
	}
	d.dirty = true
}

// Flush writes the drafts to browser storage if they changed.
func (d *Drafts) Flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.dirty || d.st == nil || d.user == 0 {
		return
	}
	d.dirty = false
	if len(d.m) == 0 {
		if d.stored { // a draft made and dropped since the last write costs nothing
			d.st.Del(draftKey(d.user))
			d.stored = false
		}
		return
	}
	if d.st.Set(draftKey(d.user), d.m) == nil {
		d.stored = true
	}
}

// Delete forgets the draft of an item (it was submitted).
func (d *Drafts) Delete(itemID int64) { d.Put(itemID, Draft{Relevance: -1}) }

func seenKey(userID int64, project, kind string) string {
	return accountProjectKey(seenKeyPrefix, userID, project, kind)
}

// FirstVisit reports whether the account has not yet been shown the
// instructions of a task kind of a project in this browser, and records
// that they now are.
func FirstVisit(st Storage, userID int64, project, kind string) bool {
	if st == nil || userID == 0 {
		return false
	}
	var seen bool
	if st.Get(seenKey(userID, project, kind), &seen) == nil && seen {
		return false
	}
	_ = st.Set(seenKey(userID, project, kind), true)
	return true
}

// evidenceName names an evidence label in a sentence ("partial evidence",
// "no evidence").
func evidenceName(e string) string {
	if e == api.EvidenceNone {
		return "no evidence"
	}
	return e + " evidence"
}

// plural is "1 sentence", "2 sentences": n and the noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

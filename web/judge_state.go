package web

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"boolpool/web/api"
)

// What the judging pages keep in browser storage for each account besides
// the outbox: the items judged here (history, to go back and correct), the
// forms in progress (drafts, so a reload loses nothing typed) and which
// task types' instructions were shown.
const (
	historyKeyPrefix = "boolpool.history.v1."
	draftKeyPrefix   = "boolpool.drafts.v1."
	seenKeyPrefix    = "boolpool.instructions-seen.v1."
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

func historyKey(userID int64, kind string) string {
	return historyKeyPrefix + strconv.FormatInt(userID, 10) + "." + kind
}

// LoadHistory returns an account's recent items of a kind, most recent
// first.
func LoadHistory(st Storage, userID int64, kind string) []HistoryEntry {
	var hs []HistoryEntry
	if st == nil || userID == 0 || st.Get(historyKey(userID, kind), &hs) != nil {
		return nil
	}
	return hs
}

// RecordHistory puts a judgment at the head of the account's history (an
// item judged again moves up, with its new labels) and returns the history.
func RecordHistory(st Storage, userID int64, e HistoryEntry) []HistoryEntry {
	hs := []HistoryEntry{e}
	for _, h := range LoadHistory(st, userID, e.Req.Kind) {
		if h.Req.ItemID != e.Req.ItemID && len(hs) < historyMax {
			hs = append(hs, h)
		}
	}
	if st != nil && userID != 0 {
		_ = st.Set(historyKey(userID, e.Req.Kind), hs)
	}
	return hs
}

// HistoryLabel says in a few words what a judgment was.
func HistoryLabel(r api.JudgmentRequest) string {
	switch {
	case r.SkipReason != "":
		return "skipped: " + r.SkipReason
	case r.Relevance != nil:
		s := relevanceName(*r.Relevance)
		if r.Evidence != "" {
			s += " · " + r.Evidence + " evidence"
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

func loadDrafts(st Storage, userID int64) map[string]Draft {
	ds := map[string]Draft{}
	if st == nil || userID == 0 {
		return ds
	}
	if st.Get(draftKey(userID), &ds) != nil || ds == nil {
		return map[string]Draft{}
	}
	return ds
}

// LoadDraft returns the account's draft of an item.
func LoadDraft(st Storage, userID, itemID int64) (Draft, bool) {
	d, ok := loadDrafts(st, userID)[strconv.FormatInt(itemID, 10)]
	return d, ok
}

// SaveDraft keeps the account's draft of an item (an empty one is
// deleted), dropping the oldest drafts beyond draftMax.
func SaveDraft(st Storage, userID, itemID int64, d Draft) {
	if st == nil || userID == 0 {
		return
	}
	ds := loadDrafts(st, userID)
	k := strconv.FormatInt(itemID, 10)
	if d.Empty() {
		if _, ok := ds[k]; !ok {
			return
		}
		delete(ds, k)
	} else {
		ds[k] = d
	}
	if len(ds) > draftMax {
		keys := make([]string, 0, len(ds))
		for k := range ds {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return ds[keys[i]].SavedAt.Before(ds[keys[j]].SavedAt) })
		for _, k := range keys[:len(ds)-draftMax] {
			delete(ds, k)
		}
	}
	if len(ds) == 0 {
		st.Del(draftKey(userID))
		return
	}
	_ = st.Set(draftKey(userID), ds)
}

// DeleteDraft forgets the account's draft of an item (it was submitted).
func DeleteDraft(st Storage, userID, itemID int64) {
	SaveDraft(st, userID, itemID, Draft{Relevance: -1})
}

func seenKey(userID int64, kind string) string {
	return seenKeyPrefix + strconv.FormatInt(userID, 10) + "." + kind
}

// FirstVisit reports whether the account has not yet been shown the
// instructions of a task kind in this browser, and records that they now
// are.
func FirstVisit(st Storage, userID int64, kind string) bool {
	if st == nil || userID == 0 {
		return false
	}
	var seen bool
	if st.Get(seenKey(userID, kind), &seen) == nil && seen {
		return false
	}
	_ = st.Set(seenKey(userID, kind), true)
	return true
}

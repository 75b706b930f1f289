package web

import (
	"strings"
	"testing"
)

// TestKeymapsListTheFieldKeys: the comment box and the adjudication note
// have keys, listed in the pages' ? help (issue 25: 29 and 70 Tabs).
func TestKeymapsListTheFieldKeys(t *testing.T) {
	has := func(keys []KeyHelp, key, word string) bool {
		for _, k := range keys {
			if k.Keys == key && strings.Contains(k.Action, word) {
				return true
			}
		}
		return false
	}
	if !has(judgeKeys, commentKey, "comment") {
		t.Errorf("the judging keymap does not list %q for the comment box", commentKey)
	}
	if !has(adjudicationKeys, noteKey, "note") {
		t.Errorf("the adjudication keymap does not list %q for the note", noteKey)
	}
	if !handledKeys[commentKey] {
		t.Errorf("%q is not cancelled on keydown: it would be typed into the box it focuses", commentKey)
	}
	for _, k := range judgeKeys {
		if k.Keys != commentKey && strings.Contains(" "+k.Keys+" ", " "+commentKey+" ") {
			t.Errorf("%q is already the judging page's key for %q", commentKey, k.Action)
		}
	}
}

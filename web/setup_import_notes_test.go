package web

import (
	"reflect"
	"testing"

	"boolpool/api"
)

// TestImportNotesListIgnoredFields: the setup page's import result shows
// a file's notes, then the fields it had that were not imported, in name
// order with their record counts.
func TestImportNotesListIgnoredFields(t *testing.T) {
	f := api.ImportedFile{Notes: []string{"a note"}, Ignored: map[string]int{"version": 2, "answers": 1}}
	want := []string{"a note", `ignored fields (present, not imported; records): "answers" (1), "version" (2)`}
	if got := importNotes(f); !reflect.DeepEqual(got, want) {
		t.Fatalf("notes %q, want %q", got, want)
	}
	if got := importNotes(api.ImportedFile{Notes: []string{}}); len(got) != 0 {
		t.Fatalf("notes %q, want none", got)
	}
}

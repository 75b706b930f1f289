package export_test

import (
	"errors"
	"testing"

	"boolpool/server/apperr"
	"boolpool/server/export"
)

// TestCheckNamesTheOption: each bad option is refused before anything is
// written, as an apperr.Invalid naming the option; good ones pass.
func TestCheckNamesTheOption(t *testing.T) {
	for _, tt := range []struct {
		format string
		opt    export.Options
		field  string // "" = valid
	}{
		{"trec-qrels", export.Options{}, ""},
		{"qrels-consensus", export.Options{Consensus: "dawid-skene", Qrels: "both"}, ""},
		{"trec-run", export.Options{Run: "bm25"}, ""},
		{"nevir", export.Options{}, ""},
		{"nope", export.Options{}, "format"},
		{"trec-run", export.Options{}, "run"},
		{"quest-judged", export.Options{Consensus: "median"}, "consensus"},
		{"beir", export.Options{Qrels: "some"}, "qrels"},
	} {
		err := export.Check(tt.format, tt.opt)
		var inv *apperr.Invalid
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("Check(%s, %+v): %v", tt.format, tt.opt, err)
		case tt.field != "" && (!errors.As(err, &inv) || inv.Field != tt.field):
			t.Errorf("Check(%s, %+v) = %v, want an Invalid naming %s", tt.format, tt.opt, err, tt.field)
		}
	}
}

// TestCheckDownload: the downloadable formats give their file extension;
// a format the CLI writes but the browser does not download (nevir) is
// refused naming format, as are the options Check refuses.
func TestCheckDownload(t *testing.T) {
	if ext, err := export.CheckDownload("beir", export.Options{}); err != nil || ext != "zip" {
		t.Errorf("beir: %q, %v; want zip", ext, err)
	}
	if ext, err := export.CheckDownload("trec-qrels", export.Options{}); err != nil || ext != "qrels" {
		t.Errorf("trec-qrels: %q, %v; want qrels", ext, err)
	}
	var inv *apperr.Invalid
	if _, err := export.CheckDownload("nevir", export.Options{}); !errors.As(err, &inv) || inv.Field != "format" {
		t.Errorf("nevir: %v, want an Invalid naming format", err)
	}
	if _, err := export.CheckDownload("trec-run", export.Options{}); !errors.As(err, &inv) || inv.Field != "run" {
		t.Errorf("trec-run without a run: %v, want an Invalid naming run", err)
	}
}

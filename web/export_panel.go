package web

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// exportFormats are the downloads offered to admins, in display order.
var exportFormats = []struct{ format, label string }{
	{"qrels-consensus", "Consensus qrels (TREC, graded)"},
	{"quest-judged", "QUEST jsonl with our ratings and attributions"},
	{"csv", "CSV of raw judgments"},
	{"trec-qrels", "TREC qrels (imported)"},
	{"quest", "QUEST jsonl (queries)"},
	{"quest-documents", "QUEST documents jsonl"},
	{"trec-topics", "TREC topics"},
	{"beir", "BEIR (zip: corpus, queries, qrels)"},
	{"idmap", "Id map of the TREC files (token → id, TSV)"},
}

// ExportPanel offers a project's export downloads to admins and lists the
// recorded export snapshots (cite an export id to name an exact version).
type ExportPanel struct {
	app.Compo
	Iprojects []string
	project   string
	snapshots []api.ExportSnapshot
	message   string
	qrels     string // qrels-consensus, quest-judged, beir: "" (direct), derived or both
	busy      string // the format being downloaded, "" when none
	failed    string // why the last download failed, "" when it did not
}

// NewExportPanel returns an empty panel.
func NewExportPanel() *ExportPanel { return &ExportPanel{} }

// Projects sets the projects to offer.
func (x *ExportPanel) Projects(v []string) *ExportPanel { x.Iprojects = v; return x }

// chosen is the selected project (the first one until the admin picks).
func (x *ExportPanel) chosen() string {
	for _, p := range x.Iprojects {
		if p == x.project {
			return p
		}
	}
	if len(x.Iprojects) > 0 {
		return x.Iprojects[0]
	}
	return ""
}

func (x *ExportPanel) loadSnapshots(ctx app.Context, e app.Event) {
	project := x.chosen()
	ctx.Async(func() {
		snaps, err := NewClient().Exports(context.Background(), project)
		ctx.Dispatch(func(ctx app.Context) {
			x.snapshots = snaps
			x.message = ""
			if err != nil {
				x.message = "Could not list exports: " + err.Error()
			} else if len(snaps) == 0 {
				x.message = "No exports recorded yet."
			}
		})
	})
}

// Render draws the panel.
func (x *ExportPanel) Render() app.UI {
	project := x.chosen()
	return app.Section().ID("exports").Aria("label", "Exports").Body(
		app.H2().Text("Exports"),
		app.If(project == "", func() app.UI { return app.P().Class("notice").Text("No projects.") }),
		app.If(project != "", func() app.UI {
			return app.Div().Body(
				selectField("export-project", "Project", x.Iprojects, project, func(v string) {
					x.project, x.snapshots, x.message = v, nil, ""
				}),
				app.Div().Class("field").Body(
					app.Label().For("export-qrels").Text("Qrels of the consensus, QUEST-judged and BEIR downloads"),
					app.Select().ID("export-qrels").OnChange(func(ctx app.Context, e app.Event) {
						x.qrels = ctx.JSSrc().Get("value").String()
					}).Body(
						app.Option().Value("").Selected(x.qrels == "").Text("Direct (relevance judgments)"),
						app.Option().Value(api.QrelsDerived).Selected(x.qrels == api.QrelsDerived).Text("Derived (from constraint judgments), marked"),
						app.Option().Value(api.QrelsBoth).Selected(x.qrels == api.QrelsBoth).Text("Both: direct, else derived, each marked"),
					),
				),
				app.Ul().Class("downloads").Body(app.Range(exportFormats).Slice(func(i int) app.UI {
					f := exportFormats[i]
					// A non-empty download attribute: go-app's router lets
					// such links through (it drops an empty one), so the
					// browser saves the file the server names.
					// The click fetches the file itself (download), so a
					// failed export shows its error instead of nothing.
					u, name := x.url(project, f.format), project+"-"+f.format
					return app.Li().Body(
						app.A().Class("button").ID("export-"+f.format).DataSet("format", f.format).
							Href(u).Attr("download", name).Aria("busy", x.busy == f.format).Text("Download " + f.label).
							OnClick(func(ctx app.Context, e app.Event) { x.download(ctx, e, f.format, f.label, u, name) }),
					)
				})),
				app.If(x.busy != "", func() app.UI {
					return app.P().Class("notice").Role("status").ID("export-busy").Text("Preparing the " + x.busyLabel() + " download…")
				}),
				app.If(x.failed != "", func() app.UI {
					return app.P().Class("error").Role("alert").ID("export-error").Text(x.failed)
				}),
				app.Button().Type("button").ID("list-exports").Text("Show recorded exports").OnClick(x.loadSnapshots),
				app.If(x.message != "", func() app.UI { return app.P().Class("notice").Role("status").Text(x.message) }),
				app.If(len(x.snapshots) > 0, func() app.UI {
					return app.Table().ID("export-snapshots").Body(
						app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Export id"), app.Th().Scope("col").Text("Format"),
							app.Th().Scope("col").Text("Time"), app.Th().Scope("col").Text("By"), app.Th().Scope("col").Text("Counts or failure"))),
						app.TBody().Body(app.Range(x.snapshots).Slice(func(i int) app.UI {
							s := x.snapshots[i]
							row := app.Tr().DataSet("failed", s.Failed)
							if s.Failed {
								row = row.Class("failed")
							}
							return row.Body(app.Td().Body(app.Code().Text(s.ID)), app.Td().Text(s.Format),
								app.Td().Text(s.CreatedAt.UTC().Format("2006-01-02 15:04:05Z")), app.Td().Text(s.CreatedBy), app.Td().Text(snapshotResult(s)))
						})),
					)
				}),
			)
		}),
	)
}

// download fetches one export and saves it; an export the server refuses
// or fails shows its reason (it used to leave the click without effect).
func (x *ExportPanel) download(ctx app.Context, e app.Event, format, label, url, name string) {
	e.PreventDefault()
	if x.busy != "" {
		return
	}
	x.busy, x.failed = format, ""
	ctx.Async(func() {
		err := download(url, name)
		ctx.Dispatch(func(ctx app.Context) {
			x.busy = ""
			if err != nil {
				x.failed = "Export " + label + " failed: " + err.Error() + " (recorded: see Show recorded exports)"
				x.snapshots = nil // the list no longer holds the newest
			}
		})
	})
}

// busyLabel is the label of the download under way.
func (x *ExportPanel) busyLabel() string {
	for _, f := range exportFormats {
		if f.format == x.busy {
			return f.label
		}
	}
	return x.busy
}

// url is a download's address, with the qrels mode where it applies.
func (x *ExportPanel) url(project, format string) string {
	u := exportURL(project, format)
	if x.qrels != "" && (format == "qrels-consensus" || format == "quest-judged" || format == "beir") {
		u += "?qrels=" + x.qrels
	}
	return u
}

// countsText prints an export's counts in key order: whole numbers as
// integers (JSON decodes them as float64, which %v printed as 1.211073e+06)
// and empty values left out.
// snapshotResult is a recorded export's counts, or "Failed: reason".
func snapshotResult(s api.ExportSnapshot) string {
	if s.Failed {
		return "Failed: " + s.Error
	}
	return countsText(s.Counts)
}

func countsText(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		v := countValue(m[k])
		if v == "" {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += k + " " + v
	}
	return out
}

// countValue is one count as text, "" for an empty value.
func countValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case []any:
		if len(x) == 0 {
			return ""
		}
	case map[string]any:
		if len(x) == 0 {
			return ""
		}
	}
	return fmt.Sprintf("%v", v)
}

package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"boolpool/server/store"
)

// CrowdParticipantView is one line of a project's crowd payment table
// (README "Crowd entry"): active minutes to two decimals, gold accuracy
// nil when no gold item was judged.
func CrowdParticipantView(cp store.CrowdParticipant) CrowdParticipant {
	v := CrowdParticipant{
		Participant: cp.Participant, Disabled: cp.Disabled, Items: cp.Items,
		ActiveMinutes: math.Round(float64(cp.ActiveMs)/600) / 100, // two decimals
		GoldJudged:    cp.GoldJudged, GoldCorrect: cp.GoldCorrect,
		Completed: cp.Completed, CompletedAt: cp.CompletedAt, FirstJudgment: cp.FirstAt, LastJudgment: cp.LastAt,
	}
	if cp.GoldJudged > 0 {
		acc := float64(cp.GoldCorrect) / float64(cp.GoldJudged)
		v.GoldAccuracy = &acc
	}
	return v
}

// CrowdParticipantsHeader names the payment table's CSV columns.
var CrowdParticipantsHeader = []string{"participant", "items_judged", "active_minutes", "gold_judged", "gold_correct",
	"gold_accuracy", "completed", "completed_at", "first_judgment", "last_judgment", "disabled"}

// CrowdParticipantsCSV writes the payment table: a header, then one line
// per participant (times in RFC 3339 UTC, blank when none; gold accuracy
// blank when no gold item was judged).
func CrowdParticipantsCSV(w io.Writer, ps []CrowdParticipant) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CrowdParticipantsHeader); err != nil {
		return fmt.Errorf("crowd participants csv: %w", err)
	}
	when := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	yes := map[bool]string{true: "yes", false: "no"}
	for _, p := range ps {
		acc := ""
		if p.GoldAccuracy != nil {
			acc = strconv.FormatFloat(*p.GoldAccuracy, 'f', 3, 64)
		}
		rec := []string{p.Participant, strconv.Itoa(p.Items), strconv.FormatFloat(p.ActiveMinutes, 'f', 2, 64),
			strconv.Itoa(p.GoldJudged), strconv.Itoa(p.GoldCorrect), acc, yes[p.Completed],
			when(p.CompletedAt), when(p.FirstJudgment), when(p.LastJudgment), yes[p.Disabled]}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("crowd participants csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("crowd participants csv: %w", err)
	}
	return nil
}

// CrowdParticipant is one line of a project's payment table (GET
// /api/projects/:project/crowd/participants, or .csv). ActiveMinutes is
// the active time logged with their judgments; GoldAccuracy is GoldCorrect
// / GoldJudged (binarised, as the dashboard's), nil when no gold item was
// judged. Completed: they reached the quota or were told they were done.
type CrowdParticipant struct {
	Participant   string
	Disabled      bool
	Items         int
	ActiveMinutes float64
	GoldJudged    int
	GoldCorrect   int
	GoldAccuracy  *float64
	Completed     bool
	CompletedAt   *time.Time
	FirstJudgment *time.Time
	LastJudgment  *time.Time
}

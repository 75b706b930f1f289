package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/store"
)

// TestCrowdSetAndParticipants: 'boolpool crowd set' validates each flag
// (exit 2 naming it) and stores the completion settings; 'boolpool crowd
// participants' prints the payment table as CSV or JSON.
func TestCrowdSetAndParticipants(t *testing.T) {
	c := newCLITest(t)
	st := c.store()
	if _, err := st.EnsureProject(c.ctx, "study"); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		args []string
		flag string
	}{
		{[]string{"crowd", "set", "--project", "study", "--completion-url", "ftp://example.org/x"}, "--completion-url"},
		{[]string{"crowd", "set", "--project", "study", "--quota-items", "-2"}, "--quota-items"},
		{[]string{"crowd", "set", "--project", "study", "--quota-minutes", "999999"}, "--quota-minutes"},
		{[]string{"crowd", "set", "--project", "study", "--completion-code", "a\tb"}, "--completion-code"},
		{[]string{"crowd", "set", "--project", "study"}, "nothing to change"},
		{[]string{"crowd", "set", "--quota-items", "3"}, "--project"},
	}
	for _, tc := range bad {
		if _, errs, code := c.exec(tc.args...); code != 2 || !strings.Contains(errs, tc.flag) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", tc.args, code, errs, tc.flag)
		}
	}
	if _, errs, code := c.exec("crowd", "set", "--project", "nope", "--quota-items", "3"); code != 1 || !strings.Contains(errs, "nope") {
		t.Errorf("unknown project: exit %d %q", code, errs)
	}
	const done = "https://app.prolific.com/submissions/complete?cc=XYZ-9"
	out, _ := c.must("crowd", "set", "--project", "study", "--enabled=true", "--completion-code", "XYZ-9",
		"--completion-url", done, "--quota-items", "20", "--quota-minutes", "15")
	if !strings.Contains(out, "entry link: <public URL>/enter/study?key=") {
		t.Errorf("crowd set output %q has no entry link", out)
	}
	cs, err := st.CrowdSettingsByName(c.ctx, "study")
	if err != nil {
		t.Fatal(err)
	}
	if !cs.Enabled || cs.Key == "" || cs.CompletionCode != "XYZ-9" || cs.CompletionURL != done || cs.QuotaItems != 20 || cs.QuotaMinutes != 15 {
		t.Errorf("stored settings %+v", cs)
	}
	// Only the flags given change.
	c.must("crowd", "set", "--project", "study", "--quota-items", "0")
	if cs, _ = st.CrowdSettingsByName(c.ctx, "study"); cs.QuotaItems != 0 || cs.QuotaMinutes != 15 || cs.CompletionCode != "XYZ-9" {
		t.Errorf("after --quota-items 0: %+v", cs)
	}

	// Two participants; one has worked 90 s on one item.
	p, _ := st.ProjectByName(c.ctx, "study")
	for _, id := range []string{"w1", "w2"} {
		if _, _, err := st.EnterCrowd(c.ctx, store.CrowdEntry{ProjectID: p.ID, Project: "study", Participant: id, NewHash: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Pool().Exec(c.ctx, `INSERT INTO activity (user_id, project_id, day, active_ms)
		SELECT id, $1, current_date, 90000 FROM users WHERE external_id = 'study/w1'`, p.ID); err != nil {
		t.Fatal(err)
	}
	out, _ = c.must("crowd", "participants", "--project", "study")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][0] != "participant" || recs[1][0] != "w1" || recs[1][2] != "1.50" || recs[2][0] != "w2" || recs[2][6] != "no" {
		t.Errorf("participants CSV (%v):\n%s", err, out)
	}
	// 90 s is short of 15 minutes; with a 1-minute quota w1 is done.
	c.must("crowd", "set", "--project", "study", "--quota-minutes", "1")
	out, _ = c.must("crowd", "participants", "--project", "study", "--format", "json")
	var table api.CrowdParticipants
	if err := json.Unmarshal([]byte(out), &table); err != nil || len(table.Participants) != 2 ||
		!table.Participants[0].Completed || table.Participants[1].Completed || table.QuotaMinutes != 1 {
		t.Errorf("participants JSON (%v): %s", err, out)
	}
	if _, errs, code := c.exec("crowd", "participants", "--project", "study", "--format", "xml"); code != 2 || !strings.Contains(errs, "--format") {
		t.Errorf("--format xml: exit %d %q", code, errs)
	}
}

// TestCrowdRelease: 'boolpool crowd release' lets the next entry with a
// participant id bind its browser; an unknown id is an error naming it.
func TestCrowdRelease(t *testing.T) {
	c := newCLITest(t)
	st := c.store()
	p, err := st.EnsureProject(c.ctx, "study")
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := st.EnterCrowd(c.ctx, store.CrowdEntry{ProjectID: p.ID, Project: p.Name, Participant: "p1", NewHash: []byte("first browser")})
	if err != nil {
		t.Fatal(err)
	}
	if _, errs, code := c.exec("crowd", "release", "--project", "study", "--participant", "nobody"); code != 1 || !strings.Contains(errs, "nobody") {
		t.Errorf("unknown participant: exit %d %q", code, errs)
	}
	if _, errs, code := c.exec("crowd", "release", "--project", "study"); code != 2 || !strings.Contains(errs, "--participant") {
		t.Errorf("no participant: exit %d %q", code, errs)
	}
	c.must("crowd", "release", "--project", "study", "--participant", "p1")
	// Another browser now binds p1.
	again, bound, err := st.EnterCrowd(c.ctx, store.CrowdEntry{ProjectID: p.ID, Project: p.Name, Participant: "p1", NewHash: []byte("second browser")})
	if err != nil || !bound || again.ID != u.ID {
		t.Fatalf("entry after release: %v bound=%v id %d want %d", err, bound, again.ID, u.ID)
	}
	if _, _, err := st.EnterCrowd(c.ctx, store.CrowdEntry{ProjectID: p.ID, Project: p.Name, Participant: "p1", NewHash: []byte("third"), PresentedHash: []byte("first browser")}); err == nil {
		t.Error("the first browser still enters after the release")
	}
}

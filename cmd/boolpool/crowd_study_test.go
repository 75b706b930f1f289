package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
)

// crowdStudyPage is the page, relative to the checkout, of the crowd
// study walkthrough (linked from the README).
const crowdStudyPage = "docs/crowd-study.md"

// TestCrowdStudyWalkthrough runs docs/crowd-study.md as written: every
// "bin/boolpool …" line of its sh blocks in a database of its own, in
// order, from a scratch directory ("serve" as a process of its own on a
// free loopback address), and every "curl …" line as the HTTP request it
// spells (method, headers, body, -o file; $B, $CSRF, $A and $J as the
// page sets them, NAME=$(curl … | jq -r PATH) keeping PATH of the answer).
// The participants' part, which the page describes as pages to click,
// is done over HTTP by three participants entering through the link that
// 'crowd set' printed, judging until the quota and receiving the code.
// It then checks what the study produced: all three completed in the
// payment table (CLI and CSV), the review's note in the participant's
// feedback, and metrics from 'eval' on the exported qrels.
func TestCrowdStudyWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process")
	}
	root, page, dir := pageTest(t, crowdStudyPage)
	lines := crowdStudyLines(t, page)
	cache := os.Getenv("BOOLPOOL_CACHE")
	ctx := context.Background()

	s := &studyRun{t: t, vars: map[string]string{}, outputs: map[string]string{}}
	ran := map[string]bool{} // first word(s) of each kind of step run
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "bin/boolpool "):
			cmd, _, _ := strings.Cut(strings.TrimPrefix(l, "bin/boolpool "), " #")
			cmd = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cmd), "&"))
			args := checkoutArgs(root, cmd)
			if args[0] == "serve" {
				s.serve(cache, args[1:])
				ran["serve"] = true
				continue
			}
			if len(args) > 1 && args[0] == "crowd" && args[1] == "participants" && !s.participantsDone {
				s.participants()
			}
			if args[0] == "import" && strings.HasSuffix(args[len(args)-1], "train.jsonl") {
				s.trainFile = args[len(args)-1]
			}
			key := args[0]
			if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
				key += " " + args[1]
			}
			ran[key] = true
			s.outputs[key] = s.boolpool(ctx, args)
		case strings.Contains(l, "curl "):
			s.curl(l)
			ran["curl"] = true
		case strings.HasPrefix(l, "A="):
			// The participant's account name, crowd-<project id>-P1: the
			// page's (project id 1 in a fresh database) must be the one
			// the entry made.
			if want, _, _ := strings.Cut(strings.TrimPrefix(l, "A="), " "); want != s.vars["A"] {
				t.Errorf("%s sets A=%s; P1's account is %q", crowdStudyPage, want, s.vars["A"])
			}
		case strings.HasPrefix(l, "B="):
			// The server's address: the run's own (a free port).
		default:
			t.Fatalf("%s: a line the walkthrough test does not know how to run: %q", crowdStudyPage, l)
		}
	}
	for _, k := range []string{"migrate", "import", "user add", "serve", "index", "retrieve", "pool",
		"crowd set", "crowd participants", "export", "eval", "curl"} {
		if !ran[k] {
			t.Errorf("%s runs no %q step", crowdStudyPage, k)
		}
	}
	if !s.participantsDone {
		t.Fatal("the walkthrough never reached the participants' part ('crowd participants')")
	}

	// The pool has gold items.
	m := regexp.MustCompile(`published: (\d+) new relevance items \((\d+) gold;`).FindStringSubmatch(s.outputs["pool"])
	if m == nil {
		t.Fatalf("pool printed no publish line:\n%s", s.outputs["pool"])
	}
	if items, _ := strconv.Atoi(m[1]); items < 3*crowdStudyQuota {
		t.Errorf("the pool published %d items, fewer than the three quotas", items)
	}
	if gold, _ := strconv.Atoi(m[2]); gold == 0 {
		t.Errorf("the pool has no gold items: %s", m[0])
	}

	// The payment table, from the CLI and as the CSV the curl line saved.
	s.checkPayment("crowd participants", s.outputs["crowd participants"])
	csvData, err := os.ReadFile(filepath.Join(dir, "participants.csv"))
	if err != nil {
		t.Fatalf("the walkthrough should have saved participants.csv: %v", err)
	}
	s.checkPayment("participants.csv", string(csvData))
	t.Logf("payment table:\n%s", csvData)

	// The dashboard's gold check flags P3 (graded against the answers)
	// and neither P1 nor P2.
	var dash api.LiveSnapshot
	if st := s.lead.Do("GET", "/api/projects/study/dashboard", nil, &dash); st != 200 {
		t.Fatalf("dashboard: status %d", st)
	}
	flagged := map[string]bool{}
	for _, a := range dash.Annotators {
		for _, pid := range []string{"P1", "P2", "P3"} {
			if strings.HasSuffix(a.Username, "-"+pid) {
				flagged[pid] = a.Flagged
				if a.Items != crowdStudyQuota || a.GoldItems == 0 {
					t.Errorf("dashboard row of %s: %d items, %d gold; want %d items and gold", pid, a.Items, a.GoldItems, crowdStudyQuota)
				}
			}
		}
	}
	if len(flagged) != 3 || flagged["P1"] || flagged["P2"] || !flagged["P3"] {
		t.Errorf("dashboard flags %v; want P3 alone of P1, P2, P3", flagged)
	}

	// The review's note is in the participant's feedback.
	if s.vars["J"] == "" {
		t.Fatal("the walkthrough reviewed no judgment ($J unset)")
	}
	p1 := s.parts[0]
	var fb api.Feedback
	if st := p1.Do("GET", "/api/projects/study/feedback", nil, &fb); st != 200 {
		t.Fatalf("P1's feedback: status %d", st)
	}
	wantNote := regexp.MustCompile(`"note":"([^"]+)"`).FindStringSubmatch(strings.Join(lines, "\n"))
	if wantNote == nil {
		t.Fatal("the walkthrough's review has no note")
	}
	if fb.Total != 1 || fb.Corrections != 1 || len(fb.Entries) != 1 || fb.Entries[0].Review.Note != wantNote[1] ||
		fmt.Sprint(fb.Entries[0].Judgment.JudgmentID) != s.vars["J"] || fb.Entries[0].Review.Verdict != api.ReviewCorrect {
		t.Errorf("P1's feedback %+v; want the one correction of judgment %s with the note %q", fb, s.vars["J"], wantNote[1])
	}
	// The other participants received none.
	for _, p := range s.parts[1:] {
		var other api.Feedback
		if st := p.Do("GET", "/api/projects/study/feedback", nil, &other); st != 200 || other.Total != 0 {
			t.Errorf("another participant's feedback: status %d, %d reviews", st, other.Total)
		}
	}

	// The exported qrels hold the judged items, with TREC-safe ids, and
	// eval scored the run against them.
	qrels, err := os.ReadFile(filepath.Join(dir, "consensus.qrels"))
	if err != nil {
		t.Fatal(err)
	}
	qlines := strings.Split(strings.TrimSpace(string(qrels)), "\n")
	if len(qlines) < crowdStudyQuota {
		t.Errorf("consensus.qrels has %d lines for %d judgments:\n%s", len(qlines), 3*crowdStudyQuota, qrels)
	}
	for _, l := range qlines {
		if f := strings.Fields(l); len(f) != 4 {
			t.Errorf("consensus.qrels line %q has %d fields, want 4", l, len(f))
		}
	}
	// The correction is the item's consensus: grade 3 in the qrels.
	corrected := fb.Entries[0].Judgment
	if want := corrected.QueryExtID + " 0 " + strings.ReplaceAll(corrected.DocExtID, " ", "_") + " 3"; !slices.Contains(qlines, want) {
		t.Errorf("consensus.qrels has no line %q for the corrected judgment:\n%s", want, qrels)
	}
	// The id map names the escaped QUEST titles of the qrels.
	idmap, err := os.ReadFile(filepath.Join(dir, "study.idmap"))
	if err != nil {
		t.Fatalf("the walkthrough should have written study.idmap: %v", err)
	}
	for _, l := range qlines {
		doc := strings.Fields(l)[2]
		if strings.Contains(doc, "_") && !strings.Contains(string(idmap), "\t"+doc+"\t"+strings.ReplaceAll(doc, "_", " ")+"\n") {
			t.Errorf("study.idmap has no line for the qrels' %s:\n%s", doc, idmap)
		}
	}
	evalOut := s.outputs["eval"]
	scores := evalTable(t, evalOut, "bm25.run")
	for _, metric := range []string{"ndcg@10", "p@5", "recall@100"} {
		v, err := strconv.ParseFloat(scores[metric], 64)
		if err != nil || v < 0 || v > 1 {
			t.Errorf("eval %s = %q:\n%s", metric, scores[metric], evalOut)
		}
	}
	// P@5 by hand from the two files: relevant (grade >= 1) documents in
	// each judged query's top 5, averaged over the judged queries.
	rel := map[string]map[string]bool{}
	for _, l := range qlines {
		f := strings.Fields(l)
		if rel[f[0]] == nil {
			rel[f[0]] = map[string]bool{}
		}
		if g, _ := strconv.Atoi(f[3]); g >= 1 {
			rel[f[0]][f[2]] = true
		}
	}
	runData, err := os.ReadFile(filepath.Join(dir, "bm25.run"))
	if err != nil {
		t.Fatal(err)
	}
	hits := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(runData)), "\n") {
		f := strings.Fields(l)
		if rank, _ := strconv.Atoi(f[3]); rank <= 5 && rel[f[0]][f[2]] {
			hits[f[0]]++
		}
	}
	sum := 0.0
	for q := range rel {
		sum += float64(hits[q]) / 5
	}
	if want := fmt.Sprintf("%.4f", sum/float64(len(rel))); scores["p@5"] != want || scores["queries"] != strconv.Itoa(len(rel)) {
		t.Errorf("eval: p@5 %s over %s queries; by hand %s over the %d queries of consensus.qrels", scores["p@5"], scores["queries"], want, len(rel))
	}
}

// evalTable reads the row of run from eval's table: column name → cell.
func evalTable(t *testing.T, out, run string) map[string]string {
	t.Helper()
	var header []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "run" && header == nil {
			header = f
			continue
		}
		if header != nil && len(f) == len(header) && f[0] == run {
			row := map[string]string{}
			for i, h := range header {
				row[h] = f[i]
			}
			return row
		}
	}
	t.Fatalf("eval printed no row for %s:\n%s", run, out)
	return nil
}

// crowdStudyQuota is the walkthrough's --quota-items (checked against the
// page when 'crowd set' runs).
const crowdStudyQuota = 4

// crowdStudyLines returns the lines of the page's sh blocks, with
// backslash continuations joined and blank lines dropped.
func crowdStudyLines(t *testing.T, page string) []string {
	t.Helper()
	var lines []string
	rest := page
	for {
		_, after, ok := strings.Cut(rest, "```sh\n")
		if !ok {
			break
		}
		block, tail, ok := strings.Cut(after, "```")
		if !ok {
			t.Fatalf("%s: an sh block is not closed", crowdStudyPage)
		}
		rest = tail
		joined := strings.ReplaceAll(block, "\\\n", " ")
		for _, l := range strings.Split(joined, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) < 12 {
		t.Fatalf("%s has %d lines in sh blocks", crowdStudyPage, len(lines))
	}
	return lines
}

// studyRun is the state of one run of the walkthrough.
type studyRun struct {
	t                *testing.T
	base             string
	lead             *lbUser           // the researcher's session (lead.jar)
	vars             map[string]string // $B, $CSRF, $A, $J …
	outputs          map[string]string // stdout of each boolpool command
	entryKey         string
	trainFile        string    // the imported QUEST queries (their answers grade the participants' items)
	parts            []*lbUser // the participants P1, P2, P3
	participantsDone bool
}

func (s *studyRun) boolpool(ctx context.Context, args []string) string {
	s.t.Helper()
	var out, errb bytes.Buffer
	if code := run(ctx, args, &out, &errb); code != 0 {
		s.t.Fatalf("$ bin/boolpool %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	if args[0] == "crowd" && args[1] == "set" {
		if !strings.Contains(strings.Join(args, " "), fmt.Sprintf("--quota-items %d", crowdStudyQuota)) {
			s.t.Fatalf("crowd set %v: the test expects --quota-items %d", args, crowdStudyQuota)
		}
		m := regexp.MustCompile(`/enter/study\?key=([^&\s]+)&participant=`).FindStringSubmatch(out.String())
		if m == nil {
			s.t.Fatalf("crowd set printed no entry link:\n%s", out.String())
		}
		key, err := url.QueryUnescape(m[1])
		if err != nil {
			s.t.Fatal(err)
		}
		s.entryKey = key
		s.vars["CODE"] = flagValue(args, "--completion-code")
		s.vars["CODEURL"] = flagValue(args, "--completion-url")
	}
	return out.String()
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// serve starts `boolpool serve` with the page's flags (but a free address).
func (s *studyRun) serve(cache string, args []string) {
	s.t.Helper()
	var kept []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--addr" {
			i++
			continue
		}
		kept = append(kept, args[i])
	}
	s.base = startServeProcess(s.t, cache, kept...)
	s.vars["B"] = s.base
	s.lead = &lbUser{judgingtest.NewAPIUser(s.t, s.base)}
}

// shellWords splits a command line as sh does for the quoting the page
// uses: '…' literal, "…" with $NAME expanded, bare words with $NAME
// expanded.
func (s *studyRun) shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				s.t.Fatalf("unclosed ' in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				s.t.Fatalf("unclosed \" in %q", line)
			}
			cur.WriteString(s.expand(line[i+1 : i+1+j]))
			i += j + 1
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			j := strings.IndexAny(line[i:], " \t'\"")
			if j < 0 {
				j = len(line) - i
			}
			cur.WriteString(s.expand(line[i : i+j]))
			i += j - 1
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

var shellVar = regexp.MustCompile(`\$([A-Z][A-Z0-9_]*)`)

func (s *studyRun) expand(text string) string {
	return shellVar.ReplaceAllStringFunc(text, func(v string) string {
		val, ok := s.vars[v[1:]]
		if !ok {
			s.t.Fatalf("%s uses %s before the walkthrough sets it", crowdStudyPage, v)
		}
		return val
	})
}

// curl runs one curl line of the page: [NAME=$(]curl ARGS[ | jq -r PATH)].
func (s *studyRun) curl(line string) {
	s.t.Helper()
	if s.lead == nil {
		s.t.Fatalf("%q: curl before serve", line)
	}
	assign := ""
	if m := regexp.MustCompile(`^([A-Z]+)=\$\((.*)\)$`).FindStringSubmatch(line); m != nil {
		assign, line = m[1], m[2]
	}
	if assign == "A" {
		s.t.Fatalf("%q: $A is the participant's account name, not a curl answer", line)
	}
	curlPart, jqPart, piped := strings.Cut(line, " | ")
	words := s.shellWords(strings.TrimSpace(curlPart))
	if len(words) == 0 || words[0] != "curl" {
		s.t.Fatalf("%q: not a curl line", line)
	}
	method, body, outFile, target := "", "", "", ""
	headers := http.Header{}
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() string {
			if i+1 >= len(words) {
				s.t.Fatalf("%q: %s without a value", line, w)
			}
			i++
			return words[i]
		}
		switch w {
		case "-s":
		case "-b", "-c":
			if f := next(); f != "lead.jar" {
				s.t.Fatalf("%q: the test keeps one cookie jar, lead.jar, not %q", line, f)
			}
		case "-X":
			method = next()
		case "-H":
			k, v, _ := strings.Cut(next(), ":")
			headers.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		case "-d":
			body = next()
		case "-o":
			outFile = next()
		default:
			if strings.HasPrefix(w, "-") || target != "" {
				s.t.Fatalf("%q: curl argument %q is not one the test knows", line, w)
			}
			target = w
		}
	}
	if method == "" {
		method = "GET"
		if body != "" {
			method = "POST"
		}
	}
	if !strings.HasPrefix(target, s.base+"/") {
		s.t.Fatalf("%q: URL %q is not on the server ($B)", line, target)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header = headers
	res, err := s.lead.Client.Do(req)
	if err != nil {
		s.t.Fatalf("%q: %v", line, err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 300 {
		s.t.Fatalf("%s %s: status %d: %s", method, target, res.StatusCode, data)
	}
	if outFile != "" {
		if err := os.WriteFile(outFile, data, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	if assign == "" {
		return
	}
	if !piped {
		s.vars[assign] = strings.TrimSpace(string(data))
		return
	}
	jq := s.shellWords(strings.TrimSpace(jqPart))
	if len(jq) != 3 || jq[0] != "jq" || jq[1] != "-r" {
		s.t.Fatalf("%q: the test reads answers with 'jq -r PATH' only", line)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		s.t.Fatalf("%q: answer %q: %v", line, data, err)
	}
	s.vars[assign] = jqPath(s.t, doc, jq[2])
}

// jqPath evaluates a jq path such as .a, .a[0].b over a decoded document.
func jqPath(t *testing.T, doc any, path string) string {
	t.Helper()
	cur := doc
	for _, part := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		name, idx, hasIdx := strings.Cut(part, "[")
		if name != "" {
			obj, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("jq %s: %q of a non-object", path, name)
			}
			cur = obj[name]
		}
		if hasIdx {
			n, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			arr, ok := cur.([]any)
			if err != nil || !ok || n >= len(arr) {
				t.Fatalf("jq %s: index %q of %v", path, idx, cur)
			}
			cur = arr[n]
		}
	}
	switch v := cur.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatInt(int64(v), 10)
	case nil:
		t.Fatalf("jq %s: null", path)
	}
	t.Fatalf("jq %s: %v is not a string or number", path, cur)
	return ""
}

var startFormToken = regexp.MustCompile(`name="form" value="([^"]+)"`)

// participants enters P1, P2 and P3 through the link and judges until
// each receives the completion code.
func (s *studyRun) participants() {
	s.t.Helper()
	if s.entryKey == "" {
		s.t.Fatal("no entry link: the walkthrough must turn crowd entry on (crowd set --enabled=true) first")
	}
	answers := questAnswers(s.t, s.trainFile)
	clientN := 0
	for _, pid := range []string{"P1", "P2", "P3"} {
		p := &lbUser{judgingtest.NewAPIUser(s.t, s.base)}
		p.Client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		link := s.base + "/enter/study?key=" + url.QueryEscape(s.entryKey) + "&participant=" + pid
		res, err := p.Client.Get(link)
		if err != nil {
			s.t.Fatal(err)
		}
		startPage, _ := io.ReadAll(res.Body)
		res.Body.Close()
		m := startFormToken.FindSubmatch(startPage)
		if res.StatusCode != 200 || m == nil {
			s.t.Fatalf("%s opens the link: status %d, no start form:\n%s", pid, res.StatusCode, startPage)
		}
		form := url.Values{"key": {s.entryKey}, "participant": {pid}, "form": {string(m[1])}}
		req, _ := http.NewRequest("POST", s.base+"/enter/study", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.base)
		res, err = p.Client.Do(req)
		if err != nil {
			s.t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/judge/study" {
			s.t.Fatalf("%s presses Start: status %d, Location %q", pid, res.StatusCode, res.Header.Get("Location"))
		}
		var me api.Me
		if st := p.Do("GET", "/api/me", nil, &me); st != 200 {
			s.t.Fatalf("%s: /api/me after entry: status %d", pid, st)
		}
		p.CSRF, p.ID = me.CSRFToken, me.UserID
		if !strings.HasPrefix(me.Username, "crowd-") || !strings.HasSuffix(me.Username, "-"+pid) {
			s.t.Fatalf("%s entered as %q, want crowd-<project id>-%s", pid, me.Username, pid)
		}
		if pid == "P1" {
			s.vars["A"] = me.Username
		}

		judged := 0
		var last api.Queue
		for round := 0; ; round++ {
			if round > crowdStudyQuota+2 {
				s.t.Fatalf("%s: no completion after %d queue requests (%d judged)", pid, round, judged)
			}
			var q api.Queue
			if st := p.Do("POST", "/api/projects/study/queue", api.QueueRequest{Kind: api.KindRelevance, N: 3}, &q); st != 200 {
				s.t.Fatalf("%s queue: status %d", pid, st)
			}
			if q.Completed || len(q.Tasks) == 0 {
				last = q
				break
			}
			if len(q.Tasks) > api.CrowdLeaseCap || judged+len(q.Tasks) > crowdStudyQuota {
				s.t.Errorf("%s leased %d items with %d judged: past the lease cap or the quota", pid, len(q.Tasks), judged)
			}
			for _, task := range q.Tasks {
				// P1 and P2 grade as the QUEST answers say (2 for an
				// answer document, 0 otherwise); P3 the opposite.
				rel := 0
				if answers[task.Query.Text][task.Document.ExtID] != (pid == "P3") {
					rel = 2
				}
				clientN++
				req := api.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", 7000+clientN), AuthorID: p.ID,
					ItemID: task.ItemID, Kind: api.KindRelevance, Relevance: &rel, Evidence: api.EvidenceComplete, TimeSpentMs: 4000}
				var jr api.JudgmentResponse
				if st := p.Do("POST", "/api/judgments", req, &jr); st != 201 {
					s.t.Fatalf("%s judges item %d: status %d", pid, task.ItemID, st)
				}
				judged++
			}
		}
		if judged != crowdStudyQuota || !last.Completed || last.CompletionCode != s.vars["CODE"] || last.CompletionURL != s.vars["CODEURL"] {
			s.t.Fatalf("%s after %d judgments: completed %t, code %q, URL %q; want the quota %d and code %q, URL %q",
				pid, judged, last.Completed, last.CompletionCode, last.CompletionURL, crowdStudyQuota, s.vars["CODE"], s.vars["CODEURL"])
		}
		s.parts = append(s.parts, p)
	}
	s.participantsDone = true
}

// questAnswers reads a QUEST queries file: query text (and original query
// without its marks) → answer documents.
func questAnswers(t *testing.T, path string) map[string]map[string]bool {
	t.Helper()
	if path == "" {
		t.Fatal("the walkthrough imports no QUEST train.jsonl")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Query    string   `json:"query"`
			Original string   `json:"original_query"`
			Docs     []string `json:"docs"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs := map[string]bool{}
		for _, d := range rec.Docs {
			docs[d] = true
		}
		// The judging page shows the original query without its marks.
		out[rec.Query] = docs
		out[strings.NewReplacer("<mark>", "", "</mark>", "").Replace(rec.Original)] = docs
	}
	return out
}

// checkPayment checks a payment table CSV: P1, P2, P3, each with the
// quota's items and completed.
func (s *studyRun) checkPayment(what, data string) {
	s.t.Helper()
	recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", what, err, data)
	}
	if len(recs) != 4 {
		s.t.Fatalf("%s has %d lines, want a header and 3 participants:\n%s", what, len(recs), data)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"participant", "items_judged", "gold_judged", "gold_correct", "gold_accuracy", "completed", "completed_at"} {
		if _, ok := col[h]; !ok {
			s.t.Fatalf("%s has no %s column: %v", what, h, recs[0])
		}
	}
	seen := map[string]bool{}
	goldJudged := 0
	for _, r := range recs[1:] {
		pid := r[col["participant"]]
		seen[pid] = true
		// Gold accuracy: P1 and P2 graded as the answers say, P3 the
		// opposite.
		gj, _ := strconv.Atoi(r[col["gold_judged"]])
		goldJudged += gj
		want := r[col["gold_judged"]]
		if pid == "P3" {
			want = "0"
		}
		if gj > 0 && r[col["gold_correct"]] != want {
			s.t.Errorf("%s: %s judged %d gold items, %s right; want %s", what, pid, gj, r[col["gold_correct"]], want)
		}
		if gj == 0 && r[col["gold_accuracy"]] != "" {
			s.t.Errorf("%s: %s has accuracy %q without gold", what, pid, r[col["gold_accuracy"]])
		}
		if r[col["items_judged"]] != strconv.Itoa(crowdStudyQuota) || r[col["completed"]] != "yes" || r[col["completed_at"]] == "" {
			s.t.Errorf("%s: %v; want %d items, completed yes with a time", what, r, crowdStudyQuota)
		}
	}
	if goldJudged == 0 {
		s.t.Errorf("%s: no participant judged a gold item", what)
	}
	for _, pid := range []string{"P1", "P2", "P3"} {
		if !seen[pid] {
			s.t.Errorf("%s does not list %s:\n%s", what, pid, data)
		}
	}
}

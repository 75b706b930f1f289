package judging

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Submit stores a judgment. It is idempotent on req.ClientID: a retry gets
// the stored judgment back with Duplicate set, and a different judgment
// under a stored client id is a conflict. req.AuthorID must be the rater
// (the browser's outbox records who made each judgment, and a judgment is
// never stored as someone else's). Only the rater an item is
// assigned to may judge it (even after the lease ran out, so offline work is
// never lost).
func (s *Service) Submit(ctx context.Context, r Rater, req JudgmentRequest) (JudgmentResponse, error) {
	if !ValidUUID(req.ClientID) {
		return JudgmentResponse{}, apperr.Invalidf("client_id", "must be a UUID")
	}
	switch {
	case req.AuthorID == 0:
		return JudgmentResponse{}, apperr.Invalidf("author_id", "required: the id of the user who made the judgment (user_id from /api/me)")
	case req.AuthorID != r.ID:
		return JudgmentResponse{}, apperr.Refusedf(apperr.ErrForbidden, "author_id",
			"this judgment was made by user %d, but this session is user %d: only its author's session may send it", req.AuthorID, r.ID)
	}
	if req.ItemID <= 0 {
		return JudgmentResponse{}, apperr.Invalidf("item_id", "required")
	}
	td, _, err := s.assigned(ctx, r, req.ItemID)
	if err != nil {
		return JudgmentResponse{}, err
	}
	it := td.Item
	if req.Kind != it.Kind {
		return JudgmentResponse{}, apperr.Invalidf("kind", "item %d is a %s task, not %q", it.ID, it.Kind, req.Kind)
	}
	if req.TimeSpentMs < 0 || req.TimeSpentMs > maxTimeSpent {
		return JudgmentResponse{}, apperr.Invalidf("time_spent_ms", "must be between 0 and %d", maxTimeSpent)
	}
	if len(req.Comment) > maxComment {
		return JudgmentResponse{}, apperr.Invalidf("comment", "longer than %d bytes", maxComment)
	}
	if len(req.SkipReason) > maxSkipReason {
		return JudgmentResponse{}, apperr.Invalidf("skip_reason", "longer than %d bytes", maxSkipReason)
	}
	n := store.NewJudgment{
		ClientID: strings.ToLower(req.ClientID), ItemID: it.ID, UserID: r.ID, ProjectID: it.ProjectID, Kind: it.Kind,
		Comment: req.Comment, SkipReason: strings.TrimSpace(req.SkipReason), TimeSpentMs: int(req.TimeSpentMs),
	}
	if n.SkipReason == "" {
		switch it.Kind {
		case vocab.KindRelevance:
			err = relevance(td, req, &n)
		case vocab.KindParaphrase:
			err = paraphrase(it, r, req, &n)
		case vocab.KindValidation:
			err = validation(req, &n)
		case vocab.KindConstraint:
			err = constraint(td, req, &n)
		}
		if err != nil {
			return JudgmentResponse{}, err
		}
	}
	j, inserted, err := s.st.SaveJudgment(ctx, n)
	if err != nil {
		return JudgmentResponse{}, err
	}
	if inserted && it.Kind == vocab.KindRelevance && s.obs != nil {
		// Committed: the consensus (and through it the live dashboards
		// and the qrels export) follows.
		s.obs.JudgmentSaved(ctx, n.ProjectID, n.ItemID)
	}
	if inserted && it.Kind == vocab.KindConstraint && s.cobs != nil {
		// Committed: the atom label (and the derived qrels) follow.
		s.cobs.ConstraintJudged(ctx, n.ProjectID, n.ItemID)
	}
	if inserted && it.Kind == vocab.KindValidation {
		// The verdict is derived data: if this fails, the next validation
		// of the item recomputes it.
		if err := s.decideValidation(ctx, it.ID); err != nil {
			s.log.Error("validation verdict", "item", it.ID, "err", err)
		}
	}
	return JudgmentResponse{
		ID: j.ID, ClientID: j.ClientID, ItemID: j.ItemID, Contradiction: j.Contradiction,
		Supersedes: j.Supersedes, Duplicate: !inserted, CreatedAt: j.CreatedAt,
	}, nil
}

func relevance(td store.TaskData, req JudgmentRequest, n *store.NewJudgment) error {
	if req.Relevance == nil {
		return apperr.Invalidf("relevance", "required (0-3)")
	}
	if *req.Relevance < 0 || *req.Relevance > 3 {
		return apperr.Invalidf("relevance", "must be 0, 1, 2 or 3")
	}
	switch req.Evidence {
	case vocab.EvidenceComplete, vocab.EvidencePartial, vocab.EvidenceNone:
	case "":
		return apperr.Invalidf("evidence", "required (complete, partial or none)")
	default:
		return apperr.Invalidf("evidence", "must be complete, partial or none")
	}
	qv := QueryViewOf(td.Query)
	nSentences := 0
	if td.Document != nil {
		nSentences = len(DocumentViewOf(*td.Document).Sentences)
	}
	attrs, err := CleanAttributions(req.Attributions, qv, nSentences)
	if err != nil {
		return err
	}
	rel := int16(*req.Relevance)
	ev := req.Evidence
	n.Relevance, n.Evidence = &rel, &ev
	n.Contradiction = Contradiction(qv.Expression, len(qv.Atoms), *req.Relevance, attrs)
	n.Attributions, err = json.Marshal(attrs)
	if err != nil {
		return fmt.Errorf("judging: encode attributions: %w", err)
	}
	return nil
}

// CleanAttributions validates per-atom attributions against the query and
// document, sorts and de-duplicates sentence ids, and sets Counter for
// negated atoms (their sentences are counter-evidence).
func CleanAttributions(in []Attribution, q QueryView, nSentences int) ([]Attribution, error) {
	out := make([]Attribution, 0, len(in))
	seen := map[int]bool{}
	for i, a := range in {
		field := fmt.Sprintf("attributions[%d]", i)
		if a.Atom < 0 || a.Atom >= len(q.Atoms) {
			return nil, apperr.Invalidf(field+".atom", "must be between 0 and %d", len(q.Atoms)-1)
		}
		if seen[a.Atom] {
			return nil, apperr.Invalidf(field+".atom", "atom %d attributed twice", a.Atom)
		}
		seen[a.Atom] = true
		switch a.Satisfied {
		case "", vocab.SatisfiedYes, vocab.SatisfiedNo, vocab.SatisfiedUnsure:
		default:
			return nil, apperr.Invalidf(field+".satisfied", "must be yes, no or unsure")
		}
		sents := make([]int, 0, len(a.Sentences))
		have := map[int]bool{}
		for _, sid := range a.Sentences {
			if sid < 0 || sid >= nSentences {
				return nil, apperr.Invalidf(field+".sentences", "sentence %d is not in the document (it has %d)", sid, nSentences)
			}
			if !have[sid] {
				have[sid] = true
				sents = append(sents, sid)
			}
		}
		sort.Ints(sents)
		out = append(out, Attribution{Atom: a.Atom, Sentences: sents, Counter: q.Atoms[a.Atom].Negated, Satisfied: a.Satisfied})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Atom < out[j].Atom })
	return out, nil
}

// Contradiction reports whether a relevance label contradicts the rater's
// own per-atom labels under the query's expression: the labels decide the
// expression (unsure atoms only matter where they could change it) and the
// result differs from relevant = likely or definitely relevant. Satisfied
// says whether the atom's property holds for the document, before negation.
func Contradiction(e *boolexpr.Expr, nAtoms, relevance int, attrs []Attribution) bool {
	if e == nil {
		return false
	}
	truths := make([]boolexpr.Truth, nAtoms)
	for _, a := range attrs {
		if a.Atom >= 0 && a.Atom < nAtoms {
			t, err := boolexpr.TruthFromLabel(a.Satisfied)
			if err == nil {
				truths[a.Atom] = t
			}
		}
	}
	return e.Contradicts(relevance >= 2, truths)
}

// constraint checks a constraint judgment: yes / no / unsure and the
// sentences given as evidence (supporting a yes, counter-evidence for a
// no), stored in the payload as ConstraintAnswer.
func constraint(td store.TaskData, req JudgmentRequest, n *store.NewJudgment) error {
	a := req.Constraint
	if a == nil {
		return apperr.Invalidf("constraint", "required ({satisfied: yes|no|unsure, sentences: [...]})")
	}
	if !oneOf(a.Satisfied, vocab.SatisfiedYes, vocab.SatisfiedNo, vocab.SatisfiedUnsure) {
		return apperr.Invalidf("constraint.satisfied", "must be yes, no or unsure")
	}
	nSentences := 0
	if td.Document != nil {
		nSentences = len(DocumentViewOf(*td.Document).Sentences)
	}
	sents := make([]int, 0, len(a.Sentences))
	have := map[int]bool{}
	for _, sid := range a.Sentences {
		if sid < 0 || sid >= nSentences {
			return apperr.Invalidf("constraint.sentences", "sentence %d is not in the document (it has %d)", sid, nSentences)
		}
		if !have[sid] {
			have[sid] = true
			sents = append(sents, sid)
		}
	}
	sort.Ints(sents)
	var err error
	n.Payload, err = json.Marshal(ConstraintAnswer{Satisfied: a.Satisfied, Sentences: sents})
	if err != nil {
		return fmt.Errorf("judging: encode constraint answer: %w", err)
	}
	return nil
}

func paraphrase(it store.Item, r Rater, req JudgmentRequest, n *store.NewJudgment) error {
	pa := req.Paraphrase
	if pa == nil {
		return apperr.Invalidf("paraphrase", "required")
	}
	text := strings.TrimSpace(pa.Text)
	if !pa.Nonsensical && text == "" {
		return apperr.Invalidf("paraphrase.text", "required unless the query is marked nonsensical")
	}
	if len(text) > maxParaphrase {
		return apperr.Invalidf("paraphrase.text", "longer than %d bytes", maxParaphrase)
	}
	if pa.Nonsensical {
		text = ""
	}
	var err error
	n.Payload, err = json.Marshal(ParaphraseAnswer{Text: text, Nonsensical: pa.Nonsensical})
	if err != nil {
		return fmt.Errorf("judging: encode paraphrase: %w", err)
	}
	if text != "" {
		payload, err := json.Marshal(itemPayload{Paraphrase: text, AuthorID: r.ID, ParaphraseItemID: it.ID, JudgmentClientID: n.ClientID})
		if err != nil {
			return fmt.Errorf("judging: encode validation item: %w", err)
		}
		n.FollowUp = &store.NewItem{ProjectID: it.ProjectID, Kind: vocab.KindValidation, QueryID: it.QueryID, Priority: it.Priority, Payload: payload}
	}
	return nil
}

func validation(req JudgmentRequest, n *store.NewJudgment) error {
	v := req.Validation
	if v == nil {
		return apperr.Invalidf("validation", "required")
	}
	if !oneOf(v.Fluent, "yes", "no") {
		return apperr.Invalidf("validation.fluent", "must be yes or no")
	}
	if !oneOf(v.Meaning, "same", "different", "ambiguous") {
		return apperr.Invalidf("validation.meaning", "must be same, different or ambiguous")
	}
	if !oneOf(v.Naturalness, "yes", "maybe", "no") {
		return apperr.Invalidf("validation.naturalness", "must be yes, maybe or no")
	}
	var err error
	n.Payload, err = json.Marshal(v)
	if err != nil {
		return fmt.Errorf("judging: encode validation: %w", err)
	}
	return nil
}

// decideValidation applies the majority vote once three validations exist.
func (s *Service) decideValidation(ctx context.Context, itemID int64) error {
	js, err := s.st.CurrentJudgments(ctx, itemID)
	if err != nil {
		return err
	}
	var votes []ValidationAnswer
	for _, j := range js {
		var v ValidationAnswer
		if err := json.Unmarshal(j.Payload, &v); err != nil {
			return fmt.Errorf("judging: judgment %d payload: %w", j.ID, err)
		}
		votes = append(votes, v)
	}
	v, ok := MajorityVote(votes)
	if !ok {
		return nil
	}
	v.ItemID = itemID
	return s.st.SaveValidationVerdict(ctx, v)
}

// MajorityVote decides a paraphrase from three or more validations: each
// field takes its most frequent label; a tie goes to the more conservative
// label (no fluency, different meaning, not natural), so a split vote never
// accepts a paraphrase. Accepted = fluent, same meaning, natural or maybe.
func MajorityVote(votes []ValidationAnswer) (store.ValidationVerdict, bool) {
	if len(votes) < 3 {
		return store.ValidationVerdict{}, false
	}
	pick := func(order []string, get func(ValidationAnswer) string) string {
		counts := map[string]int{}
		for _, v := range votes {
			counts[get(v)]++
		}
		best := order[0]
		for _, l := range order {
			if counts[l] > counts[best] {
				best = l
			}
		}
		return best
	}
	v := store.ValidationVerdict{
		Fluent:      pick([]string{"no", "yes"}, func(a ValidationAnswer) string { return a.Fluent }),
		Meaning:     pick([]string{"different", "ambiguous", "same"}, func(a ValidationAnswer) string { return a.Meaning }),
		Naturalness: pick([]string{"no", "maybe", "yes"}, func(a ValidationAnswer) string { return a.Naturalness }),
		Votes:       len(votes),
	}
	v.Accepted = v.Fluent == "yes" && v.Meaning == "same" && v.Naturalness != "no"
	return v, true
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// ValidUUID reports whether s is a UUID in its 8-4-4-4-12 hex form.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

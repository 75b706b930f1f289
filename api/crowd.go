package api

import (
	"boolpool/server/vocab"
	"time"
)

// CrowdLeaseCap is the most items a crowd participant holds leased at
// once, so anonymous identities cannot starve a project's members.
const CrowdLeaseCap = vocab.CrowdLeaseCap

// CrowdSettings is a project's crowd entry (GET/PUT
// /api/projects/:project/crowd). EntryPath is the link to hand to the
// crowd platform (append &participant=<their id placeholder>); it is
// empty while entry is off.
type CrowdSettings struct {
	Enabled         bool   `json:"enabled"`
	EntryPath       string `json:"entry_path,omitempty"`
	MaxParticipants int    `json:"max_participants"` // 0 = no cap
	Participants    int    `json:"participants"`
	LeaseCap        int    `json:"lease_cap"`
	// Completion: a participant is done when they reach a quota (items
	// judged, active minutes; 0 = none) or nothing is left for them; they
	// then see CompletionCode and are sent back to CompletionURL.
	CompletionCode string `json:"completion_code"`
	CompletionURL  string `json:"completion_url"`
	QuotaItems     int    `json:"quota_items"`
	QuotaMinutes   int    `json:"quota_minutes"`
}

// CrowdUpdateRequest changes a project's crowd entry; absent fields stay
// (an empty completion_url clears it).
type CrowdUpdateRequest struct {
	Enabled         *bool   `json:"enabled,omitempty"`
	MaxParticipants *int    `json:"max_participants,omitempty"`
	CompletionCode  *string `json:"completion_code,omitempty"`
	CompletionURL   *string `json:"completion_url,omitempty"`
	QuotaItems      *int    `json:"quota_items,omitempty"`
	QuotaMinutes    *int    `json:"quota_minutes,omitempty"`
}

// CrowdParticipant is one line of a project's payment table (GET
// /api/projects/:project/crowd/participants, or .csv). ActiveMinutes is
// the active time logged with their judgments; GoldAccuracy is GoldCorrect
// / GoldJudged (binarised, as the dashboard's), nil when no gold item was
// judged. Completed: they reached the quota or were told they were done.
type CrowdParticipant struct {
	Participant   string     `json:"participant"`
	Disabled      bool       `json:"disabled,omitempty"`
	Items         int        `json:"items"`
	ActiveMinutes float64    `json:"active_minutes"`
	GoldJudged    int        `json:"gold_judged"`
	GoldCorrect   int        `json:"gold_correct"`
	GoldAccuracy  *float64   `json:"gold_accuracy"`
	Completed     bool       `json:"completed"`
	CompletedAt   *time.Time `json:"completed_at,omitempty"`
	FirstJudgment *time.Time `json:"first_judgment,omitempty"`
	LastJudgment  *time.Time `json:"last_judgment,omitempty"`
}

// CrowdParticipants is a project's payment table with the quota it was
// measured against.
type CrowdParticipants struct {
	QuotaItems   int                `json:"quota_items"`
	QuotaMinutes int                `json:"quota_minutes"`
	Participants []CrowdParticipant `json:"participants"`
}

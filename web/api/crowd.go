package api

// CrowdLeaseCap is the most items a crowd participant holds leased at
// once, so anonymous identities cannot starve a project's members.
const CrowdLeaseCap = 3

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
}

// CrowdUpdateRequest changes a project's crowd entry; absent fields stay.
type CrowdUpdateRequest struct {
	Enabled         *bool `json:"enabled,omitempty"`
	MaxParticipants *int  `json:"max_participants,omitempty"`
}

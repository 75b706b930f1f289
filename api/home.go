package api

// KindProgress is the signed-in rater's work of one task kind in a project
// (as the judging page's progress bar counts it).
type KindProgress struct {
	Kind     string   `json:"kind"`
	Progress Progress `json:"progress"`
}

// MyProject is one of the signed-in user's projects with their progress in
// each task kind the project has items of.
type MyProject struct {
	Name  string         `json:"name"`
	Title string         `json:"title"`
	Kinds []KindProgress `json:"kinds"`
}

// MyProjects is the answer of GET /api/me/projects: the signed-in user's
// own projects (their memberships), by name.
type MyProjects struct {
	Projects []MyProject `json:"projects"`
}

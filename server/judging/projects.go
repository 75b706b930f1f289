package judging

import (
	"context"
)

// Projects lists the rater's own projects (their memberships) with their
// progress in each task kind the project has items of, counted as the
// judging page's progress bar counts it (issue 25: an annotator in two
// projects reaches both from their home page).
func (s *Service) Projects(ctx context.Context, r Rater) (MyProjects, error) {
	ps, err := s.st.MemberProjects(ctx, r.ID)
	if err != nil {
		return MyProjects{}, err
	}
	out := MyProjects{Projects: make([]MyProject, 0, len(ps))}
	for _, p := range ps {
		mp := MyProject{Name: p.Name, Title: p.Title, Kinds: make([]KindProgress, 0, len(p.Kinds))}
		for _, kind := range p.Kinds {
			pr, err := s.st.ProgressOf(ctx, r.ID, p.ID, kind)
			if err != nil {
				return MyProjects{}, err
			}
			if pr.Total, pr.TotalHeld, err = s.st.HeldTotal(ctx, p.ID, r.ID, kind, totalIdle); err != nil {
				return MyProjects{}, err
			}
			lp := leaseParams(p.Project, r, kind, 0)
			avail, err := s.available(ctx, lp, pr, false)
			if err != nil {
				return MyProjects{}, err
			}
			mp.Kinds = append(mp.Kinds, KindProgress{Kind: kind, Progress: Progress{
				Done: pr.Done, Skipped: pr.Skipped, Leased: pr.Leased, Available: avail, ActiveMs: pr.ActiveMs}})
		}
		out.Projects = append(out.Projects, mp)
	}
	return out, nil
}

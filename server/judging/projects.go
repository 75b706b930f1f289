package judging

import (
	"context"

	"boolpool/api"
)

// Projects lists the rater's own projects (their memberships) with their
// progress in each task kind the project has items of, counted as the
// judging page's progress bar counts it (issue 25: an annotator in two
// projects reaches both from their home page).
func (s *Service) Projects(ctx context.Context, r Rater) (api.MyProjects, error) {
	ps, err := s.st.MemberProjects(ctx, r.ID)
	if err != nil {
		return api.MyProjects{}, err
	}
	out := api.MyProjects{Projects: make([]api.MyProject, 0, len(ps))}
	for _, p := range ps {
		mp := api.MyProject{Name: p.Name, Title: p.Title, Kinds: make([]api.KindProgress, 0, len(p.Kinds))}
		for _, kind := range p.Kinds {
			pr, err := s.st.ProgressOf(ctx, r.ID, p.ID, kind)
			if err != nil {
				return api.MyProjects{}, err
			}
			if pr.Total, pr.TotalHeld, err = s.st.HeldTotal(ctx, p.ID, r.ID, kind, totalIdle); err != nil {
				return api.MyProjects{}, err
			}
			lp := leaseParams(p.Project, r, kind, 0)
			avail, err := s.available(ctx, lp, pr, false)
			if err != nil {
				return api.MyProjects{}, err
			}
			mp.Kinds = append(mp.Kinds, api.KindProgress{Kind: kind, Progress: api.Progress{
				Done: pr.Done, Skipped: pr.Skipped, Leased: pr.Leased, Available: avail, ActiveMs: pr.ActiveMs}})
		}
		out.Projects = append(out.Projects, mp)
	}
	return out, nil
}

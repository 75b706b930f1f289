package httpapi

import (
	"boolpool/api"
	"boolpool/server/judging"
)

func toAPIInstructions(d judging.Instructions) api.Instructions {
	return api.Instructions{Text: d.Text, Examples: convSlice(d.Examples, toAPIExample)}
}

func toAPIExample(d judging.Example) api.Example { return api.Example(d) }

func toAPIQueue(d judging.Queue) api.Queue {
	return api.Queue{Tasks: convSlice(d.Tasks, toAPITask), Progress: toAPIProgress(d.Progress),
		Completed: d.Completed, CompletionCode: d.CompletionCode, CompletionURL: d.CompletionURL, Paused: d.Paused,
		PauseReason: d.PauseReason}
}

func toAPITask(d judging.Task) api.Task {
	return api.Task{AssignmentID: d.AssignmentID, ItemID: d.ItemID, Kind: d.Kind, Project: d.Project,
		Query: toAPIQueryView(d.Query), Document: convPtr(d.Document, toAPIDocumentView), Paraphrase: d.Paraphrase,
		Constraint: convPtr(d.Constraint, toAPIConstraintView), LeaseExpiresAt: d.LeaseExpiresAt}
}

func toAPIProjectStats(d judging.ProjectStats) api.ProjectStats { return api.ProjectStats(d) }
func toAPIProgress(d judging.Progress) api.Progress             { return api.Progress(d) }

func toAPIQueryView(d judging.QueryView) api.QueryView {
	return api.QueryView{ID: d.ID, Text: d.Text, Template: d.Template, Atoms: convSlice(d.Atoms, toAPIAtomView),
		Expression: d.Expression}
}

func toAPIDocumentView(d judging.DocumentView) api.DocumentView       { return api.DocumentView(d) }
func toAPIAtomView(d judging.AtomView) api.AtomView                   { return api.AtomView(d) }
func toAPIConstraintView(d judging.ConstraintView) api.ConstraintView { return api.ConstraintView(d) }

func toAPIMyProjects(d judging.MyProjects) api.MyProjects {
	return api.MyProjects{Projects: convSlice(d.Projects, toAPIMyProject)}
}

func toAPIMyProject(d judging.MyProject) api.MyProject {
	return api.MyProject{Name: d.Name, Title: d.Title, Kinds: convSlice(d.Kinds, toAPIKindProgress)}
}

func toAPIKindProgress(d judging.KindProgress) api.KindProgress {
	return api.KindProgress{Kind: d.Kind, Progress: toAPIProgress(d.Progress)}
}

func toAPIJudgmentResponse(d judging.JudgmentResponse) api.JudgmentResponse {
	return api.JudgmentResponse(d)
}
func toJudgingQueueRequest(w api.QueueRequest) judging.QueueRequest { return judging.QueueRequest(w) }

func toJudgingJudgmentRequest(w api.JudgmentRequest) judging.JudgmentRequest {
	return judging.JudgmentRequest{ClientID: w.ClientID, AuthorID: w.AuthorID, ItemID: w.ItemID, Kind: w.Kind,
		Relevance: w.Relevance, Evidence: w.Evidence, Attributions: convSlice(w.Attributions, toJudgingAttribution),
		Paraphrase: convPtr(w.Paraphrase, toJudgingParaphraseAnswer),
		Validation: convPtr(w.Validation, toJudgingValidationAnswer),
		Constraint: convPtr(w.Constraint, toJudgingConstraintAnswer), Comment: w.Comment, SkipReason: w.SkipReason,
		TimeSpentMs: w.TimeSpentMs}
}

func toJudgingValidationAnswer(w api.ValidationAnswer) judging.ValidationAnswer {
	return judging.ValidationAnswer(w)
}
func toAPIAttribution(d judging.Attribution) api.Attribution     { return api.Attribution(d) }
func toJudgingAttribution(w api.Attribution) judging.Attribution { return judging.Attribution(w) }
func toJudgingConstraintAnswer(w api.ConstraintAnswer) judging.ConstraintAnswer {
	return judging.ConstraintAnswer(w)
}
func toJudgingParaphraseAnswer(w api.ParaphraseAnswer) judging.ParaphraseAnswer {
	return judging.ParaphraseAnswer(w)
}

package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/auth"
	"boolpool/server/decompose"
)

// decomposeAll stores the decomposer's expressions for a project's queries
// (the editor's "decompose all"), audited under the signed-in researcher.
func (h poolHandlers) decomposeAll(c echo.Context) error {
	p, req, err := projectBody[api.DecomposeAllRequest](h.research, c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	sum, err := decompose.StoreProjectExpressions(c.Request().Context(), h.st, p.ID, decompose.StoreOptions{
		Split: req.Split, OnlyMissing: req.OnlyMissing, DryRun: req.DryRun, UserID: ss.User.ID})
	if err != nil {
		return err
	}
	out := api.DecomposeSummary{Queries: sum.Queries, Stored: sum.Stored, Skipped: sum.Skipped, DryRun: sum.DryRun,
		LowConfidence: sum.LowConfidence, ConfidenceThreshold: sum.ConfidenceThreshold,
		ByTemplate: make([]api.DecomposeTemplateCount, len(sum.ByTemplate)), Failed: make([]api.DecomposeFailure, len(sum.Failed))}
	for i, t := range sum.ByTemplate {
		out.ByTemplate[i] = api.DecomposeTemplateCount{Template: t.Template, Queries: t.Queries}
	}
	for i, f := range sum.Failed {
		out.Failed[i] = api.DecomposeFailure{ExtID: f.ExtID, Text: f.Text, Reason: f.Reason}
	}
	h.log.Info("decompose all", "project", p.Name, "stored", sum.Stored, "low_confidence", sum.LowConfidence, "skipped", sum.Skipped, "failed", len(sum.Failed), "dry_run", sum.DryRun)
	return c.JSON(http.StatusOK, out)
}

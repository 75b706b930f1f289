package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/store"
)

// Quality settings of a project (researcher; wire types in
// api/quality.go):
//
//	GET /api/projects/:project/quality  api.QualitySettings
//	PUT /api/projects/:project/quality  api.QualitySettings → api.QualitySettings;
//	                                    fields left out keep their value;
//	                                    consensus_method is the exports'
//	                                    consensus when ?consensus= is absent

// qualityPatch is a PUT body: every field optional.
type qualityPatch struct {
	GoldRate        *float64 `json:"gold_rate"`
	GoldMinAccuracy *float64 `json:"gold_min_accuracy"`
	GoldMinJudged   *int     `json:"gold_min_judged"`
	GoldPause       *bool    `json:"gold_pause"`
	ConsensusMethod *string  `json:"consensus_method"`
}

func (h researchHandlers) quality(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, api.QualitySettings(store.QualityOf(p)))
}

func (h researchHandlers) setQuality(c echo.Context) error {
	p, req, err := projectBody[qualityPatch](h, c)
	if err != nil {
		return err
	}
	q := store.QualityOf(p)
	if req.GoldRate != nil {
		if !(*req.GoldRate >= 0 && *req.GoldRate <= 1) {
			return apperr.Invalidf("gold_rate", "must be between 0 and 1 (a share of the queue)")
		}
		q.GoldRate = *req.GoldRate
	}
	if req.GoldMinAccuracy != nil {
		if !(*req.GoldMinAccuracy >= 0 && *req.GoldMinAccuracy <= 1) {
			return apperr.Invalidf("gold_min_accuracy", "must be between 0 (no check) and 1")
		}
		q.GoldMinAccuracy = *req.GoldMinAccuracy
	}
	if req.GoldMinJudged != nil {
		if *req.GoldMinJudged < 1 || *req.GoldMinJudged > 1000 {
			return apperr.Invalidf("gold_min_judged", "must be between 1 and 1000")
		}
		q.GoldMinJudged = *req.GoldMinJudged
	}
	if req.GoldPause != nil {
		q.GoldPause = *req.GoldPause
	}
	if req.ConsensusMethod != nil && *req.ConsensusMethod != "" {
		if *req.ConsensusMethod != api.ConsensusMajority && *req.ConsensusMethod != api.ConsensusDawidSkene {
			return apperr.Invalidf("consensus_method", "must be majority or dawid-skene")
		}
		q.ConsensusMethod = *req.ConsensusMethod
	}
	ss, _ := auth.CurrentSession(c)
	ctx := c.Request().Context()
	if err := h.exportSt.SetQualitySettings(ctx, p.ID, ss.User.ID, q); err != nil {
		return err
	}
	p, err = h.st.ProjectByID(ctx, p.ID)
	if err != nil {
		return err
	}
	stored := store.QualityOf(p)
	h.live.QualityChanged(p.ID, stored)
	h.log.Info("quality settings changed", "project", p.Name, "user", ss.User.ID, "settings", stored)
	return c.JSON(http.StatusOK, api.QualitySettings(stored))
}

package httpapi

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/export"
	"boolpool/server/store"
)

// Crowd entry (docs/crowd.md):
//
//	GET  /enter/:project?key=K&participant=ID   start page (PROLIFIC_PID is accepted for participant)
//	POST /enter/:project                         form: key, participant, form, replace → session, 303 /judge/<project>
//	GET  /api/projects/:project/crowd            api.CrowdSettings (researcher)
//	PUT  /api/projects/:project/crowd            api.CrowdUpdateRequest → api.CrowdSettings
//	POST /api/projects/:project/crowd/rotate     new key (old links stop working) → api.CrowdSettings
//	GET  /api/projects/:project/crowd/participants      api.CrowdParticipants (the payment table)
//	GET  /api/projects/:project/crowd/participants.csv  the same as CSV (also ?format=csv)

// crowdService is what the crowd handlers need from auth.
type crowdService interface {
	CrowdLink(ctx context.Context, project, key, clientKey string) (store.CrowdSettings, error)
	EnterCrowd(ctx context.Context, e auth.CrowdEntry) (auth.CrowdLogin, error)
	Session(ctx context.Context, token string) (store.Session, error)
	Logout(ctx context.Context, token string) error
	SetSessionCookie(c echo.Context, l auth.Login)
	SetCrowdBindCookie(c echo.Context, project, token string)
	NewEntryFormToken(c echo.Context) (string, error)
	UseEntryForm(ctx context.Context, formToken string) (bool, error)
}

// crowdStore is what the researcher's crowd settings need.
type crowdStore interface {
	CrowdSettingsByName(ctx context.Context, name string) (store.CrowdSettings, error)
	UpdateCrowdSettings(ctx context.Context, u store.CrowdUpdate) error
	CrowdParticipants(ctx context.Context, projectID int64) ([]store.CrowdParticipant, error)
}

type crowdHandlers struct {
	svc      crowdService
	st       crowdStore
	research researchHandlers
}

// startPage is the page a participant's link opens: entry changes state,
// so it is a POST from this page, never the GET of a link.
var startPage = template.Must(template.New("start").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Error}}Study link{{else}}Start the study{{end}} · boolpool</title>
<link rel="stylesheet" href="/web/boolpool.css"></head>
<body><main class="page" id="enter" data-state="{{if .Error}}error{{else}}ready{{end}}">
<div class="login-box">
{{if .Error}}<h1 class="page-title">Study link</h1>
<p class="error" id="enter-error" role="alert">{{.Error}}</p>
{{else}}<h1 class="page-title">Start the study</h1>
<p>You will judge whether documents answer search queries. Your answers are saved as you go; you can close the page and come back with the same link.</p>
{{if .Notice}}<p class="warning" id="enter-notice" role="alert">{{.Notice}}</p>{{end}}
<form method="post" action="{{.Action}}" id="enter-form">
<input type="hidden" name="key" value="{{.Key}}">
<input type="hidden" name="form" value="{{.Form}}">
{{if .Participant}}<input type="hidden" name="participant" value="{{.Participant}}">
<p>Participant id: <strong id="enter-participant">{{.Participant}}</strong></p>
{{else}}<label for="participant">Your participant id</label>
<input id="participant" name="participant" required maxlength="64" pattern="[A-Za-z0-9_\-]{1,64}" autocomplete="off">
{{end}}{{if .SignedInAs}}<p class="warning" id="enter-signed-in">You are signed in as <strong>{{.SignedInAs}}</strong>. Starting signs you out of that account in this browser.</p>
<label><input type="checkbox" name="replace" value="yes" id="enter-replace" required> Sign out of {{.SignedInAs}} and continue as a participant</label>
{{end}}<div class="actions"><button type="submit" id="enter-start">Start</button></div>
</form>{{end}}
</div></main></body></html>
`))

type startView struct {
	Action, Key, Form, Participant string
	SignedInAs                     string
	Notice, Error                  string
}

// renderStart answers with the start page (or its error form) and status.
func renderStart(c echo.Context, status int, v startView) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return startPage.Execute(c.Response(), v)
}

// entryError renders an entry failure as the start page's error form with
// the status the central error mapping gives it.
func entryError(c echo.Context, err error) error {
	p := problemFor(err)
	if p.Status >= 500 {
		return err
	}
	msg := "This study link is not valid (it may have been replaced or closed). Please ask the study's organisers for the current link."
	switch {
	case errors.Is(err, store.ErrCrowdBound):
		msg = "This participant id has already started the study in another browser. Please continue there, or contact the study's organisers."
	case errors.Is(err, store.ErrCrowdFull):
		msg = "This study has all the participants it needs. Thank you for your interest."
	case errors.Is(err, store.ErrCrowdUnbound):
		msg = "This participant id was registered before this study bound participants to their browser, so it cannot be used until the study's organisers release it. Please contact them."
	case errors.Is(err, store.ErrCrowdNameTaken):
		msg = "Another account on this server already has the name this participant id would get, so it cannot start the study. Please contact the study's organisers."
	case errors.Is(err, store.ErrCrowdRemoved):
		msg = "Your access to this study has ended. Please contact the study's organisers."
	case errors.Is(err, apperr.ErrRateLimited):
		msg = "Too many attempts from your network. Please wait a minute and try again."
	case errors.Is(err, apperr.ErrForbidden):
		msg = "You cannot take part in this study with this account. Please contact the study's organisers."
	case p.Status == http.StatusBadRequest:
		msg = "The participant id must be 1 to 64 letters, digits, '_' or '-'."
	}
	return renderStart(c, p.Status, startView{Error: msg})
}

// signedInOther returns the display name of a live session of someone
// other than participant of project ("" if none).
func (h crowdHandlers) signedInOther(c echo.Context, project, participant string) string {
	ss, err := h.svc.Session(c.Request().Context(), auth.SessionToken(c))
	if err != nil {
		return ""
	}
	if ss.User.ExternalID != nil && *ss.User.ExternalID == project+"/"+participant {
		return ""
	}
	return ss.User.Username
}

func participantParam(get func(string) string) string {
	if p := get("participant"); p != "" {
		return p
	}
	return get("PROLIFIC_PID")
}

// start shows the start page of a valid link; invalid links (unknown
// project, entry off, wrong key) all get the same 404 page.
func (h crowdHandlers) start(c echo.Context) error {
	project := c.Param("project")
	key := c.QueryParam("key")
	if _, err := h.svc.CrowdLink(c.Request().Context(), project, key, clientAddr(c)); err != nil {
		return entryError(c, err)
	}
	participant := participantParam(c.QueryParam)
	if participant != "" && !auth.ValidParticipant(participant) {
		return entryError(c, apperr.Invalidf("participant", "1-64 letters, digits, '_' or '-'"))
	}
	form, err := h.svc.NewEntryFormToken(c)
	if err != nil {
		return err
	}
	return renderStart(c, http.StatusOK, startView{
		Action: "/enter/" + url.PathEscape(project), Key: key, Form: form, Participant: participant,
		SignedInAs: h.signedInOther(c, project, participant),
	})
}

// startAgain shows the start page again, with a fresh one-time form and
// notice, after checking the link (an error page when it no longer works).
func (h crowdHandlers) startAgain(c echo.Context, status int, project, key, participant, notice string) error {
	if _, err := h.svc.CrowdLink(c.Request().Context(), project, key, clientAddr(c)); err != nil {
		return entryError(c, err)
	}
	form, err := h.svc.NewEntryFormToken(c)
	if err != nil {
		return err
	}
	return renderStart(c, status, startView{
		Action: "/enter/" + url.PathEscape(project), Key: key, Form: form, Participant: participant,
		SignedInAs: h.signedInOther(c, project, participant), Notice: notice,
	})
}

// enter signs the participant in (POST from the start page).
func (h crowdHandlers) enter(c echo.Context) error {
	project := c.Param("project")
	key := c.FormValue("key")
	participant := participantParam(c.FormValue)
	if !auth.CheckEntryForm(c, c.FormValue("form")) {
		// A stale or forged form: show a fresh start page.
		return h.startAgain(c, http.StatusForbidden, project, key, participant, "This page had expired. Please press Start again.")
	}
	// The form token is one-time: a second POST of the same form (a
	// double click, the back button, a replay) is refused.
	first, err := h.svc.UseEntryForm(c.Request().Context(), c.FormValue("form"))
	if err != nil {
		return err
	}
	if !first {
		return h.startAgain(c, http.StatusConflict, project, key, participant,
			"This start form was already sent once, so it was not used again. To continue, press Start.")
	}
	if other := h.signedInOther(c, project, participant); other != "" && c.FormValue("replace") != "yes" {
		form, err := h.svc.NewEntryFormToken(c)
		if err != nil {
			return err
		}
		return renderStart(c, http.StatusConflict, startView{
			Action: "/enter/" + url.PathEscape(project), Key: key, Form: form, Participant: participant,
			SignedInAs: other, Notice: "Confirm that you want to sign out of " + other + " first.",
		})
	}
	var bind string
	if ck, err := c.Cookie(auth.CrowdBindCookie(project)); err == nil {
		bind = ck.Value
	}
	l, err := h.svc.EnterCrowd(c.Request().Context(), auth.CrowdEntry{
		Project: project, Key: key, Participant: participant, BindToken: bind, ClientKey: clientAddr(c),
	})
	if err != nil {
		return entryError(c, err)
	}
	// The session being replaced (confirmed above) ends on the server too.
	if old := auth.SessionToken(c); old != "" {
		if err := h.svc.Logout(c.Request().Context(), old); err != nil {
			return err
		}
	}
	if l.BindToken != "" {
		h.svc.SetCrowdBindCookie(c, project, l.BindToken)
	}
	h.svc.SetSessionCookie(c, l.Login)
	return c.Redirect(http.StatusSeeOther, "/judge/"+url.PathEscape(project))
}

func crowdView(cs store.CrowdSettings) api.CrowdSettings {
	v := api.CrowdSettings{
		Enabled: cs.Enabled, MaxParticipants: cs.MaxParticipants, Participants: cs.Participants,
		LeaseCap:       api.CrowdLeaseCap,
		CompletionCode: cs.CompletionCode, CompletionURL: cs.CompletionURL,
		QuotaItems: cs.QuotaItems, QuotaMinutes: cs.QuotaMinutes,
	}
	if cs.Enabled && cs.Key != "" {
		v.EntryPath = "/enter/" + url.PathEscape(cs.Project) + "?key=" + url.QueryEscape(cs.Key)
	}
	return v
}

func (h crowdHandlers) settings(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	cs, err := h.st.CrowdSettingsByName(c.Request().Context(), p.Name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, crowdView(cs))
}

// update enables or disables entry and sets the participant cap. Enabling
// a project whose entry is off (or that has no key yet) makes a new key:
// a link closed by turning entry off stays closed.
func (h crowdHandlers) update(c echo.Context) error {
	p, req, err := projectBody[api.CrowdUpdateRequest](h.research, c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	u := store.CrowdUpdate{ProjectID: p.ID, Enabled: req.Enabled, MaxParticipants: req.MaxParticipants,
		CompletionCode: req.CompletionCode, CompletionURL: req.CompletionURL,
		QuotaItems: req.QuotaItems, QuotaMinutes: req.QuotaMinutes, By: ss.User.ID}
	if req == (api.CrowdUpdateRequest{}) {
		return apperr.Invalidf("body", "nothing to change: send enabled, max_participants, completion_code, completion_url, quota_items or quota_minutes")
	}
	if err := u.Validate(); err != nil {
		return err
	}
	if req.Enabled != nil && *req.Enabled {
		// Used if entry was off (or had no key): off→on makes a new link.
		var err error
		if u.EnableKey, err = auth.NewCrowdKey(); err != nil {
			return err
		}
	}
	if err := h.st.UpdateCrowdSettings(c.Request().Context(), u); err != nil {
		return err
	}
	return h.settings(c)
}

// rotate replaces the entry key: links with the old one stop working.
func (h crowdHandlers) rotate(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	key, err := auth.NewCrowdKey()
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	if err := h.st.UpdateCrowdSettings(c.Request().Context(), store.CrowdUpdate{ProjectID: p.ID, NewKey: key, By: ss.User.ID}); err != nil {
		return err
	}
	return h.settings(c)
}

// participants answers the payment table, as JSON or (participants.csv,
// or ?format=csv) as CSV.
func (h crowdHandlers) participants(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	format := c.QueryParam("format")
	if strings.HasSuffix(c.Path(), ".csv") {
		format = "csv"
	}
	if format != "" && format != "csv" && format != "json" {
		return apperr.Invalidf("format", "must be csv or json")
	}
	ps, err := h.st.CrowdParticipants(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	views := make([]export.CrowdParticipant, 0, len(ps))
	for _, cp := range ps {
		views = append(views, export.CrowdParticipantView(cp))
	}
	if format != "csv" {
		return c.JSON(http.StatusOK, api.CrowdParticipants{QuotaItems: p.CrowdQuotaItems, QuotaMinutes: p.CrowdQuotaMinutes,
			Participants: convSlice(views, toAPICrowdParticipant)})
	}
	h2 := c.Response().Header()
	h2.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h2.Set(echo.HeaderContentDisposition, `attachment; filename="`+p.Name+`-participants.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	return export.CrowdParticipantsCSV(c.Response(), views)
}

package httpapi

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/store"
)

// authService is what the auth handlers need.
type authService interface {
	Login(ctx context.Context, username, password, clientKey string) (auth.Login, error)
	Logout(ctx context.Context, token string) error
	SetSessionCookie(c echo.Context, l auth.Login)
	ClearSessionCookie(c echo.Context)
}

// userStore is what the account handlers need.
type userStore interface {
	UserProjects(ctx context.Context, userID int64) ([]string, error)
	ListUsers(ctx context.Context) ([]store.User, error)
	CreateUser(ctx context.Context, n store.NewUser) (store.User, error)
	ProjectByName(ctx context.Context, name string) (store.Project, error)
	AddProjectMember(ctx context.Context, projectID, userID int64) error
	UpdateUser(ctx context.Context, u store.UserUpdate) (store.User, error)
	ReleaseCrowdBinding(ctx context.Context, userID, by int64) error
}

type authHandlers struct {
	svc   authService
	users userStore
}

func (h authHandlers) login(c echo.Context) error {
	var req api.LoginRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	l, err := h.svc.Login(c.Request().Context(), req.Username, req.Password, clientAddr(c))
	if err != nil {
		return err
	}
	projects, err := h.users.UserProjects(c.Request().Context(), l.User.ID)
	if err != nil {
		return err
	}
	h.svc.SetSessionCookie(c, l)
	return c.JSON(http.StatusOK, meOf(l.User, l.CSRFToken, projects))
}

func (h authHandlers) logout(c echo.Context) error {
	if err := h.svc.Logout(c.Request().Context(), auth.SessionToken(c)); err != nil {
		return err
	}
	h.svc.ClearSessionCookie(c)
	return c.NoContent(http.StatusNoContent)
}

func (h authHandlers) me(c echo.Context) error {
	ss, _ := auth.CurrentSession(c)
	projects, err := h.users.UserProjects(c.Request().Context(), ss.User.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, meOf(ss.User, ss.CSRFToken, projects))
}

func (h authHandlers) listUsers(c echo.Context) error {
	us, err := h.users.ListUsers(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]api.UserView, 0, len(us))
	for _, u := range us {
		ps, err := h.users.UserProjects(c.Request().Context(), u.ID)
		if err != nil {
			return err
		}
		out = append(out, api.UserView{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role, Disabled: u.Disabled, Projects: ps})
	}
	return c.JSON(http.StatusOK, out)
}

func (h authHandlers) createUser(c echo.Context) error {
	var req api.NewUserRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	u, err := auth.CreateAccount(c.Request().Context(), h.users, toAuthNewAccount(req), ss.User.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, api.UserView{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role})
}

// updateUser changes an account's role, disabled flag and project
// memberships (admins). The last enabled admin cannot be demoted or
// disabled (409), by themselves or anyone.
func (h authHandlers) updateUser(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return apperr.Invalidf("id", "must be a positive integer")
	}
	var req api.UserUpdateRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Role == nil && req.Disabled == nil && req.Projects == nil && req.CrowdRebind == nil {
		return apperr.Invalidf("body", "nothing to change: send role, disabled, projects or crowd_rebind")
	}
	if req.CrowdRebind != nil && !*req.CrowdRebind {
		return apperr.Invalidf("crowd_rebind", "only true (release the bound browser) is meaningful")
	}
	if req.Role != nil && !api.ValidRole(*req.Role) {
		return apperr.Invalidf("role", "must be annotator, researcher or admin")
	}
	ss, _ := auth.CurrentSession(c)
	if req.CrowdRebind != nil {
		if err := h.users.ReleaseCrowdBinding(c.Request().Context(), id, ss.User.ID); err != nil {
			return err
		}
	}
	upd := store.UserUpdate{ID: id, Role: req.Role, Disabled: req.Disabled, By: ss.User.ID}
	if req.Projects != nil {
		upd.Projects = append([]string{}, *req.Projects...)
	}
	u, err := h.users.UpdateUser(c.Request().Context(), upd)
	if err != nil {
		return err
	}
	ps, err := h.users.UserProjects(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	if ps == nil {
		ps = []string{}
	}
	return c.JSON(http.StatusOK, api.UserView{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role, Disabled: u.Disabled, Projects: ps})
}

func meOf(u store.User, csrf string, projects []string) api.Me {
	if projects == nil {
		projects = []string{}
	}
	return api.Me{UserID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role, Projects: projects, CSRFToken: csrf}
}

// clientAddr is the peer address, the key of the login rate limit. It
// deliberately ignores X-Forwarded-For, which any client can forge.
func clientAddr(c echo.Context) string {
	host, _, err := net.SplitHostPort(c.Request().RemoteAddr)
	if err != nil {
		return c.Request().RemoteAddr
	}
	return host
}

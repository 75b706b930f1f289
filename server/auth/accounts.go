package auth

import (
	"context"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// AccountStore is what CreateAccount needs.
type AccountStore interface {
	CreateUser(ctx context.Context, n store.NewUser) (store.User, error)
	ProjectByName(ctx context.Context, name string) (store.Project, error)
	AddProjectMember(ctx context.Context, projectID, userID int64) error
}

// CreateAccount validates and creates a user (admins, and the
// 'boolpool user add' command), optionally adding them to a project.
func CreateAccount(ctx context.Context, st AccountStore, req NewAccount, createdBy int64) (store.User, error) {
	req.Username = strings.TrimSpace(req.Username)
	if !validUsername(req.Username) {
		return store.User{}, apperr.Invalidf("username", "1-64 characters: letters, digits, '.', '_' or '-'")
	}
	if strings.HasPrefix(strings.ToLower(req.Username), crowdPrefix) {
		return store.User{}, apperr.Invalidf("username", "names starting with %q are kept for crowd participants", crowdPrefix)
	}
	if !vocab.ValidRole(req.Role) {
		return store.User{}, apperr.Invalidf("role", "must be annotator, researcher or admin")
	}
	if len(req.Password) < MinPasswordLen {
		return store.User{}, apperr.Invalidf("password", "at least %d characters", MinPasswordLen)
	}
	if len(req.Password) > 1024 {
		return store.User{}, apperr.Invalidf("password", "at most 1024 characters")
	}
	var p store.Project
	if req.Project != "" {
		var err error
		if p, err = st.ProjectByName(ctx, req.Project); err != nil {
			return store.User{}, err
		}
	}
	hash, err := HashPassword(req.Password, DefaultHashParams)
	if err != nil {
		return store.User{}, err
	}
	u, err := st.CreateUser(ctx, store.NewUser{Username: req.Username, DisplayName: req.DisplayName, Role: req.Role, PasswordHash: hash, CreatedBy: createdBy})
	if err != nil {
		return store.User{}, err
	}
	if req.Project != "" {
		if err := st.AddProjectMember(ctx, p.ID, u.ID); err != nil {
			return u, err
		}
	}
	return u, nil
}

// crowdPrefix starts every crowd participant's account name
// (store.CrowdUsername); admins cannot create such names, so none blocks a
// participant's entry.
const crowdPrefix = "crowd-"

func validUsername(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// NewAccount is the body of POST /api/admin/users.
type NewAccount struct {
	Username    string
	DisplayName string
	Role        string
	Password    string
	Project     string
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
)

// runUser manages accounts: 'boolpool user add --username U --role R
// --password P [--project NAME] [--display-name N] [--exist-ok]'.
func runUser(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		fmt.Fprintln(stderr, "usage: boolpool user add --username U --role annotator|researcher|admin --password P [--project NAME]")
		return fmt.Errorf("%w: want the sub-command 'add'", errUsage)
	}
	fs := newFlagSet("user add", stderr, "")
	dbURL := dbFlag(fs)
	username := fs.String("username", "", "login name (letters, digits, . _ -)")
	role := fs.String("role", api.RoleAnnotator, "annotator, researcher or admin")
	password := fs.String("password", "", "password, at least 8 characters (or set BOOLPOOL_PASSWORD)")
	project := fs.String("project", "", "also make the user a member of this project (must exist)")
	display := fs.String("display-name", "", "name shown in the UI")
	existOK := fs.Bool("exist-ok", false, "succeed without changes when the username is taken (for idempotent demo setup)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *password == "" {
		*password = os.Getenv("BOOLPOOL_PASSWORD")
	}
	st, err := openStore(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := auth.CreateAccount(ctx, st, auth.NewAccount{
		Username: *username, DisplayName: *display, Role: *role, Password: *password, Project: *project,
	}, 0)
	var inv *apperr.Invalid
	switch {
	case errors.As(err, &inv):
		return fmt.Errorf("%w: --%s: %s", errUsage, inv.Field, inv.Reason)
	case errors.Is(err, apperr.ErrConflict) && *existOK:
		existing, err := st.UserByUsername(ctx, *username)
		if err != nil {
			return err
		}
		if *project != "" {
			p, err := st.ProjectByName(ctx, *project)
			if err != nil {
				return err
			}
			if err := st.AddProjectMember(ctx, p.ID, existing.ID); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "user %s exists (id %d, %s)\n", existing.Username, existing.ID, existing.Role)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "created user %s (id %d, %s)\n", u.Username, u.ID, u.Role)
	return nil
}

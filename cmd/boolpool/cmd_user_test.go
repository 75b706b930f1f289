package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"boolpool/server/auth"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func TestUserAdd(t *testing.T) {
	url := storetest.URL(t)
	ctx := context.Background()
	st, err := store.Open(ctx, url, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := st.EnsureProject(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"create", []string{"--username", "ann", "--role", "annotator", "--password", "long password", "--project", "demo"}, 0, "created user ann"},
		{"taken", []string{"--username", "ann", "--role", "annotator", "--password", "long password"}, 1, ""},
		{"taken, exist-ok", []string{"--username", "ann", "--password", "long password", "--exist-ok"}, 0, "user ann exists"},
		{"bad role", []string{"--username", "bob", "--role", "boss", "--password", "long password"}, 2, ""},
		{"short password", []string{"--username", "bob", "--password", "short"}, 2, ""},
		{"unknown project", []string{"--username", "bob", "--password", "long password", "--project", "nope"}, 1, ""},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		args := append([]string{"user", "add", "--database-url", url}, tc.args...)
		if code := run(ctx, args, &stdout, &stderr); code != tc.code || !strings.Contains(stdout.String(), tc.out) {
			t.Errorf("%s: exit %d (%s%s), want %d with %q", tc.name, code, stdout.String(), stderr.String(), tc.code, tc.out)
		}
	}
	u, err := st.UserByUsername(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := auth.VerifyPassword(u.PasswordHash, "long password"); !ok || u.Role != "annotator" {
		t.Errorf("stored user %+v does not verify", u)
	}
	if ok, _ := st.IsProjectMember(ctx, p.ID, u.ID); !ok {
		t.Error("not a member of demo")
	}
	if _, err := st.UserByUsername(ctx, "bob"); err == nil {
		t.Error("an invalid 'user add' created bob")
	}
}

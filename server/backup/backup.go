// Package backup dumps and restores a boolpool database with PostgreSQL's
// own pg_dump / pg_restore (custom format), so backups stay readable by
// standard tools.
package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// tool finds a PostgreSQL client program: $PATH first, then the Debian
// location of the server's major version.
func tool(name string) (string, error) {
	for _, dir := range []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("backup: %s not found (install postgresql-client-15)", name)
}

// Dump writes a custom-format dump of the database at dbURL to path,
// through a temporary file so a failed dump never replaces a good one.
func Dump(ctx context.Context, dbURL, path string) error {
	bin, err := tool("pg_dump")
	if err != nil {
		return err
	}
	tmp := path + ".partial"
	cmd := exec.CommandContext(ctx, bin, "--format=custom", "--no-owner", "--no-privileges", "--file", tmp, "--dbname", dbURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: pg_dump: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// Restore loads a dump made by Dump into the database at dbURL, replacing
// the objects it contains, in one transaction: it either fully succeeds or
// leaves the database as it was.
func Restore(ctx context.Context, dbURL, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	bin, err := tool("pg_restore")
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
		"--exit-on-error", "--dbname", dbURL, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("backup: pg_restore failed (nothing changed): %s", bytes.TrimSpace(stderr.Bytes()))
		}
		return fmt.Errorf("backup: pg_restore: %w", err)
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/export"
	"boolpool/server/store"
)

const crowdUsage = `usage:
  boolpool crowd set --project P [--enabled=true|false] [--max-participants N]
                     [--completion-code C] [--completion-url U] [--quota-items N] [--quota-minutes M]
  boolpool crowd participants --project P [--format csv|json]
  boolpool crowd release --project P --participant ID

set changes a project's crowd entry (only the flags given; --completion-url ""
clears the URL; 0 = no quota). participants prints the payment table: per
participant items judged, active minutes, gold accuracy, completed yes/no.
release forgets the browser bound to a participant id (or lets an account
made before binding be bound): the next entry with it binds its browser.`

// runCrowd is 'boolpool crowd set|participants' (README "Crowd entry").
func runCrowd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "set" && args[0] != "participants" && args[0] != "release") {
		fmt.Fprintln(stderr, crowdUsage)
		return fmt.Errorf("%w: want the sub-command 'set', 'participants' or 'release'", errUsage)
	}
	switch args[0] {
	case "participants":
		return runCrowdParticipants(ctx, args[1:], stdout, stderr)
	case "release":
		return runCrowdRelease(ctx, args[1:], stdout, stderr)
	}
	return runCrowdSet(ctx, args[1:], stdout, stderr)
}

// crowdFlags maps the API's field names (apperr.Invalid) to the flags.
var crowdFlags = map[string]string{
	"max_participants": "max-participants", "completion_code": "completion-code", "completion_url": "completion-url",
	"quota_items": "quota-items", "quota_minutes": "quota-minutes",
}

// ifSet is v when the flag name is among those given (set), else nil:
// an update changes only what the command line names.
func ifSet[T any](set map[string]bool, name string, v *T) *T {
	if set[name] {
		return v
	}
	return nil
}

func runCrowdSet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("crowd set", stderr, crowdUsage)
	dbURL := dbFlag(fs)
	project := fs.String("project", "", "the project (required)")
	enabled := fs.Bool("enabled", false, "turn crowd entry on (true) or off (false)")
	maxP := fs.Int("max-participants", 0, "most participants (0 = no cap)")
	code := fs.String("completion-code", "", "the code shown to a participant who is done")
	doneURL := fs.String("completion-url", "", `where a participant who is done is sent (http/https), e.g. https://app.prolific.com/submissions/complete?cc=CODE; "" clears it`)
	items := fs.Int("quota-items", 0, "items a participant judges to be done (0 = no quota)")
	minutes := fs.Int("quota-minutes", 0, "active minutes after which a participant is done (0 = no quota)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *project == "" {
		return fmt.Errorf("%w: --project is required", errUsage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	u := store.CrowdUpdate{
		Enabled:         ifSet(set, "enabled", enabled),
		MaxParticipants: ifSet(set, "max-participants", maxP),
		CompletionCode:  ifSet(set, "completion-code", code),
		CompletionURL:   ifSet(set, "completion-url", doneURL),
		QuotaItems:      ifSet(set, "quota-items", items),
		QuotaMinutes:    ifSet(set, "quota-minutes", minutes),
	}
	if u == (store.CrowdUpdate{}) {
		return fmt.Errorf("%w: nothing to change: give --enabled, --max-participants, --completion-code, --completion-url, --quota-items or --quota-minutes", errUsage)
	}
	if err := crowdFlagError(u.Validate()); err != nil {
		return err
	}
	st, p, err := openProject(ctx, *dbURL, *project)
	if err != nil {
		return err
	}
	defer st.Close()
	u.ProjectID = p.ID
	if u.Enabled != nil && *u.Enabled {
		// Used if entry was off (or had no key): off→on makes a new link.
		if u.EnableKey, err = auth.NewCrowdKey(); err != nil {
			return err
		}
	}
	if err := crowdFlagError(st.UpdateCrowdSettings(ctx, u)); err != nil {
		return err
	}
	cs, err := st.CrowdSettingsByName(ctx, p.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "crowd entry of %s: enabled %t, max participants %d, completion code %q, completion URL %q, quota %d items, %d minutes\n",
		cs.Project, cs.Enabled, cs.MaxParticipants, cs.CompletionCode, cs.CompletionURL, cs.QuotaItems, cs.QuotaMinutes)
	if cs.Enabled && cs.Key != "" {
		fmt.Fprintf(stdout, "entry link: <public URL>/enter/%s?key=%s&participant={{%%PROLIFIC_PID%%}}\n", url.PathEscape(cs.Project), url.QueryEscape(cs.Key))
	}
	return nil
}

// crowdFlagError names the flag of an invalid field.
func crowdFlagError(err error) error {
	var inv *apperr.Invalid
	if errors.As(err, &inv) {
		name := crowdFlags[inv.Field]
		if name == "" {
			name = inv.Field
		}
		return fmt.Errorf("%w: --%s: %s", errUsage, name, inv.Reason)
	}
	return err
}

func runCrowdParticipants(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("crowd participants", stderr, crowdUsage)
	dbURL := dbFlag(fs)
	project := fs.String("project", "", "the project (required)")
	format := fs.String("format", "csv", "csv or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" {
		return fmt.Errorf("%w: --project is required", errUsage)
	}
	if *format != "csv" && *format != "json" {
		return fmt.Errorf("%w: --format: must be csv or json", errUsage)
	}
	st, p, err := openProject(ctx, *dbURL, *project)
	if err != nil {
		return err
	}
	defer st.Close()
	ps, err := st.CrowdParticipants(ctx, p.ID)
	if err != nil {
		return err
	}
	views := make([]export.CrowdParticipant, 0, len(ps))
	out := api.CrowdParticipants{QuotaItems: p.CrowdQuotaItems, QuotaMinutes: p.CrowdQuotaMinutes,
		Participants: make([]api.CrowdParticipant, 0, len(ps))}
	for _, cp := range ps {
		v := export.CrowdParticipantView(cp)
		views = append(views, v)
		out.Participants = append(out.Participants, api.CrowdParticipant(v))
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return export.CrowdParticipantsCSV(stdout, views)
}

// runCrowdRelease is 'boolpool crowd release': an admin hands a participant
// id back to its participant (docs/crowd.md).
func runCrowdRelease(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("crowd release", stderr, crowdUsage)
	dbURL := dbFlag(fs)
	project := fs.String("project", "", "the project (required)")
	participant := fs.String("participant", "", "the participant id (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" || *participant == "" {
		return fmt.Errorf("%w: --project and --participant are required", errUsage)
	}
	st, err := openStore(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := st.CrowdUserID(ctx, *project, *participant)
	if err != nil {
		return fmt.Errorf("--participant: %w", err)
	}
	if err := st.ReleaseCrowdBinding(ctx, id, 0); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "participant %s of %s released: the next entry with this id binds its browser\n", *participant, *project)
	return nil
}

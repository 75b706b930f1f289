package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/ingest"
	"boolpool/server/jobs"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// Project setup endpoints (wire types and routes in api/setup.go):
// create a project, upload files through the importers of `boolpool
// import`, and start, watch and cancel background jobs (encoder and
// retrieval runs). Researchers see and change the projects they are
// members of; admins all.

// setupStore is what the setup handlers read and write directly.
type setupStore interface {
	CreateProject(ctx context.Context, name, title string, createdBy int64) (store.Project, error)
	ListProjects(ctx context.Context) ([]store.Project, error)
	UserProjects(ctx context.Context, userID int64) ([]string, error)
	ProjectByName(ctx context.Context, name string) (store.Project, error)
	ProjectByID(ctx context.Context, id int64) (store.Project, error)
	CountProject(ctx context.Context, projectID int64) (store.ProjectCounts, error)
	ListJobs(ctx context.Context, projectID int64, limit int) ([]store.Job, error)
	JobByID(ctx context.Context, id int64) (store.Job, error)
}

type setupHandlers struct {
	research   researchHandlers
	st         setupStore
	importSt   *store.Store // the importers write through the store itself
	jobs       *jobs.Client // nil: no background jobs
	encoders   []string
	maxUpload  int64
	uploadRoot string // parent of the per-upload temporary directories
	maxLine    int64  // longest line of an imported file
	maxImport  int64  // largest imported file, decompressed
	imports    *importGate
	log        *slog.Logger
}

// projectName is the form of a project name: it appears in page URLs.
var projectName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

func (h setupHandlers) listProjects(c echo.Context) error {
	ctx := c.Request().Context()
	ss, _ := auth.CurrentSession(c)
	var ps []store.Project
	if ss.User.Role == api.RoleAdmin {
		var err error
		if ps, err = h.st.ListProjects(ctx); err != nil {
			return err
		}
	} else {
		names, err := h.st.UserProjects(ctx, ss.User.ID)
		if err != nil {
			return err
		}
		for _, n := range names {
			p, err := h.st.ProjectByName(ctx, n)
			if err != nil {
				return err
			}
			ps = append(ps, p)
		}
	}
	out := make([]api.ProjectView, 0, len(ps))
	for _, p := range ps {
		v, err := h.projectView(ctx, p)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	return c.JSON(http.StatusOK, out)
}

func (h setupHandlers) projectView(ctx context.Context, p store.Project) (api.ProjectView, error) {
	n, err := h.st.CountProject(ctx, p.ID)
	if err != nil {
		return api.ProjectView{}, err
	}
	return api.ProjectView{Name: p.Name, Title: p.Title, Counts: api.ProjectCounts(n)}, nil
}

func (h setupHandlers) createProject(c echo.Context) error {
	var req api.NewProjectRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	req.Title = strings.TrimSpace(req.Title)
	if !projectName.MatchString(req.Name) {
		return apperr.Invalidf("name", "1-63 characters: lowercase letters, digits, '-' or '_', starting with a letter or digit")
	}
	if len(req.Title) > 200 {
		return apperr.Invalidf("title", "at most 200 characters")
	}
	ss, _ := auth.CurrentSession(c)
	p, err := h.st.CreateProject(c.Request().Context(), req.Name, req.Title, ss.User.ID)
	if err != nil {
		return err
	}
	v, err := h.projectView(c.Request().Context(), p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}

func (h setupHandlers) options(c echo.Context) error {
	out := api.SetupOptions{Formats: ingest.Formats(), Encoders: h.encoders, JobKinds: h.jobs.Kinds()}
	if out.Encoders == nil {
		out.Encoders = []string{}
	}
	for _, s := range retrieval.Specs() {
		m := api.MethodOption{Name: s.Name, Summary: s.Summary, Needs: string(s.Needs), Params: []api.MethodParam{}}
		for _, p := range s.Params {
			m.Params = append(m.Params, api.MethodParam{Name: p.Name, Default: p.Default, Doc: p.Doc})
		}
		out.Methods = append(out.Methods, m)
	}
	return c.JSON(http.StatusOK, out)
}

// importFiles streams the uploaded files into a temporary directory under
// their own names and imports them as `boolpool import` does: each file in
// one transaction, in upload order (BEIR: corpus, queries, then qrels). A
// bad line is a 400 naming file:line:field; that file is not imported at
// all, and files before it stay imported (the answer says which).
func (h setupHandlers) importFiles(c echo.Context) error {
	// A declared length over the limit is refused before a byte of the
	// body is read or written anywhere.
	if n := c.Request().ContentLength; n > h.maxUpload {
		return tooLarge(h.maxUpload)
	}
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	leave, err := h.imports.enter(ss.User.ID)
	if err != nil {
		return err
	}
	defer leave()
	dir, err := newUploadDir(h.uploadRoot)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	format, runName, names, err := h.receive(c, dir)
	if err != nil {
		return err
	}
	if !slices.Contains(ingest.Formats(), format) {
		return apperr.Invalidf("format", "must be one of %s", strings.Join(ingest.Formats(), ", "))
	}
	if len(names) == 0 {
		return apperr.Invalidf("files", "no file uploaded")
	}
	paths := make([]string, 0, len(names))
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, n))
	}
	if format == "beir" {
		// The BEIR importer reads a dataset directory: qrels/*.tsv beside
		// corpus.jsonl and queries.jsonl, imported in that order.
		if err := os.Mkdir(filepath.Join(dir, "qrels"), 0o700); err != nil {
			return fmt.Errorf("httpapi: upload: %w", err)
		}
		for _, n := range names {
			if strings.HasSuffix(n, ".tsv") {
				if err := os.Rename(filepath.Join(dir, n), filepath.Join(dir, "qrels", n)); err != nil {
					return fmt.Errorf("httpapi: upload: %w", err)
				}
			}
		}
		paths = []string{dir}
	}
	results, err := ingest.Files(c.Request().Context(), h.importSt, p.ID, format, paths, ingest.Options{RunName: runName, Log: h.log, MaxLine: h.maxLine, MaxBytes: h.maxImport})
	out := api.ImportResult{Format: format, Files: []api.ImportedFile{}}
	for _, r := range results {
		notes := r.Notes
		if notes == nil {
			notes = []string{}
		}
		out.Files = append(out.Files, api.ImportedFile{File: relTo(dir, r.File), Kind: r.Kind, Documents: r.Counts.Documents,
			Queries: r.Counts.Queries, Qrels: r.Counts.Qrels, RunResults: r.Counts.RunResults, Notes: notes, Ignored: r.Ignored,
			Duplicates: r.Counts.Duplicates, DuplicateLines: r.DuplicateLines})
	}
	if err != nil {
		return importError(dir, err, out.Files)
	}
	h.log.Info("files imported", "project", p.Name, "format", format, "files", len(out.Files), "user", ss.User.Username)
	return c.JSON(http.StatusOK, out)
}

// receive reads the multipart form: the format and run_name fields and the
// files, each written to dir under its base name. It returns the file
// names in upload order.
func (h setupHandlers) receive(c echo.Context, dir string) (format, runName string, names []string, err error) {
	req := c.Request()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, h.maxUpload)
	mr, err := req.MultipartReader()
	if err != nil {
		return "", "", nil, apperr.Invalidf("body", "send multipart/form-data with a format field and one or more files: %v", err)
	}
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			// Read the body to its end (an epilogue after the last
			// boundary, within the limit), so that the connection is
			// reusable while the import runs.
			if _, err := io.Copy(io.Discard, req.Body); err != nil {
				return "", "", nil, uploadError(err)
			}
			return format, runName, names, nil
		}
		if err != nil {
			return "", "", nil, uploadError(err)
		}
		switch part.FormName() {
		case "format":
			format, err = smallField(part)
		case "run_name":
			runName, err = smallField(part)
		case "files":
			var name string
			name, err = saveUpload(part, dir, seen)
			if err == nil {
				names = append(names, name)
			}
		default:
			_, err = io.Copy(io.Discard, part)
		}
		part.Close()
		if err != nil {
			return "", "", nil, uploadError(err)
		}
	}
}

func smallField(part *multipart.Part) (string, error) {
	b, err := io.ReadAll(io.LimitReader(part, 1024))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// saveUpload writes one uploaded file to dir under its base name; a file
// that cannot be read whole (the upload limit passed, the client gone) is
// removed at once.
func saveUpload(part *multipart.Part, dir string, seen map[string]bool) (string, error) {
	name := filepath.Base(strings.ReplaceAll(part.FileName(), `\`, "/"))
	if name == "" || name == "." || name == "/" || name == ".." || name == "qrels" || len(name) > 200 || strings.ContainsRune(name, 0) {
		return "", apperr.Invalidf("files", "file name %q is not usable", part.FileName())
	}
	if seen[name] {
		return "", apperr.Invalidf("files", "%s is uploaded twice", name)
	}
	seen[name] = true
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("httpapi: upload: %w", err)
	}
	if _, err := io.Copy(f, part); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("httpapi: upload: %w", err)
	}
	return name, nil
}

// uploadError maps a failed read of the request body to a 4xx where the
// client is at fault.
func uploadError(err error) error {
	var inv *apperr.Invalid
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &inv):
		return err
	case errors.As(err, &maxErr):
		return tooLarge(maxErr.Limit)
	case errors.Is(err, errBodyTooSlow):
		return err // bodyDeadline answers 408
	case errors.Is(err, multipart.ErrMessageTooLarge), errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Invalidf("body", "the upload is incomplete or malformed: %v", err)
	}
	return apperr.Invalidf("body", "unreadable upload: %v", err)
}

func tooLarge(limit int64) error {
	return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("the upload is larger than %d bytes (the -max-upload limit)", limit))
}

// importError turns an importer's error into a 400 naming the uploaded
// file (not the temporary path), line and field.
func importError(dir string, err error, imported []api.ImportedFile) error {
	var le *ingest.LineError
	if !errors.As(err, &le) {
		return err
	}
	field := relTo(dir, le.File)
	if le.Line > 0 {
		field += ":" + strconv.Itoa(le.Line)
	}
	if le.Field != "" {
		field += ":" + le.Field
	}
	reason := le.Reason + " (nothing of this file was imported"
	if len(imported) > 0 {
		var done []string
		for _, f := range imported {
			done = append(done, f.File)
		}
		reason += "; imported before it: " + strings.Join(done, ", ")
	}
	return apperr.Invalidf(field, "%s)", reason)
}

// relTo names a file of the upload directory by its path inside it.
func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		if rel == "." {
			return "(upload)"
		}
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// maxJobList bounds ?limit of GET /api/projects/:project/jobs (default 50).
const maxJobList = 10000

func (h setupHandlers) listJobs(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	limit := 50
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxJobList {
			return apperr.Invalidf("limit", "must be 1 to %d", maxJobList)
		}
		limit = n
	}
	js, err := h.st.ListJobs(c.Request().Context(), p.ID, limit)
	if err != nil {
		return err
	}
	out := make([]api.JobView, 0, len(js))
	for _, j := range js {
		out = append(out, jobView(j, p.Name))
	}
	return c.JSON(http.StatusOK, out)
}

func (h setupHandlers) startJob(c echo.Context) error {
	p, req, err := projectBody[api.JobRequest](h.research, c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	j, err := h.jobs.Submit(c.Request().Context(), p.ID, req.Kind, req.Params, ss.User.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, jobView(j, p.Name))
}

// job loads the :id job if the signed-in user may see its project.
func (h setupHandlers) job(c echo.Context) (store.Job, store.Project, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return store.Job{}, store.Project{}, apperr.Invalidf("id", "must be a positive integer")
	}
	j, err := h.st.JobByID(c.Request().Context(), id)
	if err != nil {
		return j, store.Project{}, err
	}
	if err := h.research.allowed(c, j.ProjectID); err != nil {
		return j, store.Project{}, err
	}
	p, err := h.st.ProjectByID(c.Request().Context(), j.ProjectID)
	return j, p, err
}

func (h setupHandlers) getJob(c echo.Context) error {
	j, p, err := h.job(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, jobView(j, p.Name))
}

func (h setupHandlers) cancelJob(c echo.Context) error {
	j, p, err := h.job(c)
	if err != nil {
		return err
	}
	if err := h.jobs.Cancel(c.Request().Context(), j.ID); err != nil {
		return err
	}
	if j, err = h.st.JobByID(c.Request().Context(), j.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, jobView(j, p.Name))
}

func jobView(j store.Job, project string) api.JobView {
	return api.JobView{ID: j.ID, Project: project, Kind: j.Kind, Params: j.Params, State: j.State, Phase: j.Phase,
		Done: j.Done, Total: j.Total, Rate: j.Rate, Error: j.Error, Result: j.Result,
		CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt}
}

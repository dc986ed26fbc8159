import Hummingbird

/// Browser routes: every app URL answers with `index.html`, so a shared link opens the app.
func addWebRoutes(to router: some RouterMethods<BasicRequestContext>, files: StaticFiles) {
    let appPage: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
        guard let page = try files.response(forPath: "/index.html", request: request) else {
            throw APIError(.notFound, "no web app", detail: "index.html is missing from the web root \(files.root.path).")
        }
        return page
    }
    for path in ["/", "/traces/:id", "/traces/:id/updates/:updateId", "/compare/:a/:b", "/compare"] {
        router.get(RouterPath(path), use: appPage)
        router.head(RouterPath(path), use: appPage)
    }
}

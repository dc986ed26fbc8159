import Hummingbird

/// Browser routes: every app URL answers with `index.html`, so a shared link opens the app.
func addWebRoutes(to router: some RouterMethods<TraceRequestContext>, files: StaticFiles) {
    let appPage: @Sendable (Request, TraceRequestContext) async throws -> Response = { request, context in
        guard let page = try files.response(forPath: "/index.html", request: request) else {
            context.logger.error("index.html is missing from the web root \(files.root.path)")
            throw APIError(.notFound, "no web app", detail: "The server's web root has no index.html.")
        }
        return page
    }
    for path in ["/", "/traces/:id", "/traces/:id/updates/:updateId", "/compare/:a/:b", "/compare", "/history", "/audit"] {
        router.get(RouterPath(path), use: appPage)
        router.head(RouterPath(path), use: appPage)
    }
}

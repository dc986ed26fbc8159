import Hummingbird

/// Browser routes: every app URL answers with `index.html`, so a shared link opens the app.
struct WebRoutes: RouteController {
    let files: StaticFiles

    func add(to router: some RouterMethods<TraceRequestContext>) {
        for path in ["/", "/traces/:id", "/traces/:id/updates/:updateId", "/compare/:a/:b", "/compare", "/history", "/audit"] {
            router.get(RouterPath(path), use: appPage)
            router.head(RouterPath(path), use: appPage)
        }
    }

    @Sendable func appPage(_ request: Request, context: TraceRequestContext) async throws -> Response {
        guard let page = try files.response(forPath: "/index.html", request: request) else {
            context.logger.error("index.html is missing from the web root \(files.root.path)")
            throw APIError(.notFound, "no web app", detail: "The server's web root has no index.html.")
        }
        return page
    }
}

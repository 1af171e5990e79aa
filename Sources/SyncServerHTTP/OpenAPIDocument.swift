import SyncServerHost
import Foundation
import SyncCore
import SyncWire

/// The OpenAPI 3.1 document of the served API, made from the route table
/// (``WebServicesRoute/table``) alone: every served route's path, methods,
/// request body (an object with the keys the route reads; other keys are
/// ignored), and responses: 200, and every error status it can answer, each
/// with the error body `{"serverErrorCode", "reason", …}`. Served at
/// `GET /openapi.json`, without credentials. The server's own calls
/// (`/internal/…`) are not part of it: the network never reaches them.
enum OpenAPIDocument {
    /// The document as JSON (sorted keys), made once.
    static let json: Data = {
        do {
            return try JSONSerialization.data(withJSONObject: document(), options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            preconditionFailure("the OpenAPI document is not JSON: \(error)")
        }
    }()

    static let version = "3.1.0"

    /// The document as JSON objects.
    static func document() -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for route in WebServicesRoute.table where route.isServed {
            var item = paths[route.pathTemplate] ?? [:]
            if route.methods.contains(.get) { item["get"] = operation(route, method: "get") }
            if route.methods.contains(.post) { item["post"] = operation(route, method: "post") }
            paths[route.pathTemplate] = item
        }
        return [
            "openapi": version,
            "info": [
                "title": "SyncScope: CloudKit Web Services",
                "version": "1",
                "description": "CloudKit Web Services as `syncscope serve` answers them, with its own admin, asset-file and web courier routes. Every error body is {\"serverErrorCode\", \"reason\", …}. A user signs in with their web auth token (`ckWebAuthToken=TOKEN` or `Authorization: Bearer TOKEN`); the public database also takes anonymous reads.",
            ],
            "paths": paths,
            "components": [
                "securitySchemes": [
                    "bearerToken": ["type": "http", "scheme": "bearer", "description": "A user's web auth token, or the server admin token."],
                    "ckWebAuthToken": ["type": "apiKey", "in": "query", "name": "ckWebAuthToken", "description": "A user's web auth token."],
                ],
                "schemas": [
                    "Error": errorSchema
                ] as [String: Any],
            ] as [String: Any],
        ]
    }

    /// `{"serverErrorCode", "reason", …}`: a whole request's error (``WireError``).
    static var errorSchema: [String: Any] { [
        "type": "object",
        "required": ["serverErrorCode", "reason"],
        "properties": [
            "serverErrorCode": ["type": "string"],
            "reason": ["type": "string"],
            "recordName": ["type": "string"],
            "zoneID": ["type": "object"],
            "subscriptionID": ["type": "string"],
            "retryAfter": ["type": "number"],
            "syncscopeErrorCode": ["type": "string"],
            "serverRecord": ["type": "object"],
        ],
    ] }

    /// The names of a route's path arguments, in the path's order.
    static func pathArguments(_ route: WebServicesRoute) -> [String] {
        route.pathTemplate.split(separator: "/").compactMap { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    private static func parameter(_ name: String) -> [String: Any] {
        let schema: [String: Any]
        switch name {
        case "environment": schema = ["type": "string", "enum": ContainerEnvironment.allCases.map(\.rawValue)] as [String: Any]
        case "database": schema = ["type": "string", "enum": DatabaseScope.allCases.map(\.rawValue)] as [String: Any]
        default: schema = ["type": "string", "minLength": 1, "maxLength": 255] as [String: Any]
        }
        return ["name": name, "in": "path", "required": true, "schema": schema] as [String: Any]
    }

    private static func queryParameter(_ query: WebServicesRoute.QueryParameter) -> [String: Any] {
        var schema: [String: Any] = ["type": query.type]
        if let minimum = query.minimum { schema["minimum"] = minimum }
        if let maxLength = query.maxLength { schema["maxLength"] = maxLength }
        return ["name": query.name, "in": "query", "required": false, "description": query.summary, "schema": schema] as [String: Any]
    }

    private static func operation(_ route: WebServicesRoute, method: String) -> [String: Any] {
        var operation: [String: Any] = [
            "operationId": "\(method) \(route.pathTemplate)",
            "summary": route.summary,
            "tags": [route.family.rawValue],
            "responses": responses(route),
        ]
        let parameters = pathArguments(route).map(parameter) + route.query.map(queryParameter)
        if !parameters.isEmpty { operation["parameters"] = parameters }
        if route.handling.isDocument {
            operation["security"] = [[String: Any]]()
        } else {
            // A token, or none (anonymous calls: the public database, asset files).
            operation["security"] = [["bearerToken": [String]()], ["ckWebAuthToken": [String]()], [String: [String]]()]
        }
        if method == "post", let body = route.body {
            let content: [String: Any] = body.schema.map { ["application/json": ["schema": $0.jsonSchema]] as [String: Any] }
                ?? ["application/octet-stream": ["schema": ["type": "string", "format": "binary"]]] as [String: Any]
            operation["requestBody"] = ["required": false, "content": content] as [String: Any]
        }
        return operation
    }

    private static func responses(_ route: WebServicesRoute) -> [String: Any] {
        var responses: [String: Any] = [:]
        switch route.family {
        case .assetFiles where route.operation == "download":
            responses["200"] = ["description": "The file's bytes.", "content": ["application/octet-stream": ["schema": ["type": "string", "format": "binary"]]]] as [String: Any]
        case .webcourier:
            responses["200"] = [
                "description": "The next notification; an empty body when the timeout passed with none.",
                "content": ["application/json": ["schema": ["type": "object"]]],
            ] as [String: Any]
        default:
            responses["200"] = ["description": "The answer.", "content": ["application/json": ["schema": ["type": "object"]]]] as [String: Any]
        }
        for status in route.allErrorStatuses {
            responses[String(status)] = [
                "description": "An error: serverErrorCode and reason say which.",
                "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]],
            ] as [String: Any]
        }
        return responses
    }
}

extension WebServicesRoute.Handling {
    var isDocument: Bool {
        if case .document = self { return true }
        return false
    }
}

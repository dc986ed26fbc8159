import Foundation
import TraceCLI

exit(await TraceSvc.run(arguments: Array(CommandLine.arguments.dropFirst())))

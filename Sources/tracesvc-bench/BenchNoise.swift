import ArgumentParser
import Foundation
import TraceModel
import TraceSamples

/// The false-alarm rates and the power of compare, check and history on recordings that differ
/// by run-to-run noise only, or by a known change (docs/statistics.md prints its table).
struct BenchNoise: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noise",
        abstract: "Simulate noisy recordings (lognormal sigma 0.12 per recording, 5 % per update) and print how often compare, check and history claim a change.",
        discussion: "Deterministic for a --seed. The recordings are the Orchard app's (TraceSamples/NoisyRecordings.swift), never the samples."
    )

    @Option(help: "Trials of each compare and check row.")
    var trials = 200

    @Option(help: "Series of each history row (30 builds each).")
    var series = 12

    @Option(help: "Seed of the first recording.")
    var seed: UInt64 = 40

    func validate() throws {
        guard trials >= 1, series >= 1 else { throw ValidationError("--trials and --series must be at least 1.") }
    }

    func run() async throws {
        let start = ContinuousClock.now
        var simulation = NoiseSimulation(seed: seed)
        let rates = simulation.compareAndCheck(trials: trials) + simulation.history(series: series)
        print("noise simulation, seed \(seed): sigma \(RunNoise.defaultSigma) per recording, 5 % per update; "
              + "claims at alpha \(RecordingEffect.alpha), prior weight \(Int(RunNoise.priorWeight))")
        print("")
        print("what".padding(toLength: 84, withPad: " ", startingAt: 0) + "     rate        (n)   95 % interval   target   met")
        for rate in rates {
            let interval = rate.interval
            print(rate.name.padding(toLength: 84, withPad: " ", startingAt: 0)
                  + String(format: "%7.1f %%", rate.percent) + "\(rate.hits)/\(rate.trials)".leftPadded(11)
                  + String(format: "%6.1f … %5.1f %%", interval.low, interval.high).leftPadded(16)
                  + rate.target.leftPadded(9) + (rate.meets ? "   yes" : "   NO"))
        }
        print("")
        print("interval: the 95 % Wilson score interval of each rate over its trials (what this many trials can tell)")
        let elapsed = ContinuousClock.now - start
        print("")
        let targeted = rates.filter { $0.target != "–" }
        print("\(targeted.filter(\.meets).count) of \(targeted.count) targets met; \(elapsed.components.seconds) s")
    }
}

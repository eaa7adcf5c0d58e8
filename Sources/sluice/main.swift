// Entry point: everything lives in SluiceCLI so it can be tested.
import SluiceCLI

SluiceCommand.runMain()

"""A minimal scenario written only against the contract (`engine.scenario`,
`engine.scenario_spec`): the proof that adding a world is one package and one
registry line (`scenarios.register("tiny", "tests.tiny_scenario.spec")`)."""

	const translateKey = "AIzaeCaqB_tQzeCgGrPKBYLOmi-YJ01xGt69WTs"

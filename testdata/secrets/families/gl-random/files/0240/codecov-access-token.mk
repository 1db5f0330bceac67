CODECOV_TOKEN = "glp6lco7oa045me28yljea2wjzycmmnr"

<?php
$k = 'SKxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';
$task = 'TASKf91624a8940f1f836f99eee3692f09e2';

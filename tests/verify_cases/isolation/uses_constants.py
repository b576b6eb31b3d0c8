# Imports a module named like one of another folder's: it must get its own.
from constants import SCALE

scale = SCALE
